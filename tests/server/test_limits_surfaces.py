"""Size limits as each surface shows them: the CLI's one line, the service's 413, and a
pre hook that recalls on the start of a prompt of megabytes instead of giving nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cortex_tui.clients import local_service
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import TooLargeError
from cortex_tui.models import MemoryDraft
from tests.server.conftest import start_service, stop_service
from tests.server.test_service import prompt_event, run


def test_the_cli_refuses_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    refused = run(
        home,
        "remember",
        "x" * 150,
        CORTEX_DAEMON="0",
        CORTEX_LIMITS__CONTENT_CHARS="100",
    )
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "150 characters, over limits.content_chars (100)" in refused.stderr
    query = run(home, "recall", "atlas " * 2000, CORTEX_DAEMON="0")
    assert query.returncode == 2
    assert "over limits.query_chars (8192); ask with fewer words" in query.stderr


def test_the_service_answers_413_with_the_limit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = start_service(
        home, CORTEX_LIMITS__CONTENT_CHARS="1000", CORTEX_LIMITS__REQUEST_BYTES="65536"
    )
    try:
        with pytest.raises(local_service.ServiceError) as over:
            local_service.call(home, "POST", "/v1/remember", {"content": "y" * 1001})
        assert over.value.status == 413
        assert "over limits.content_chars (1000)" in str(over.value)
        with pytest.raises(local_service.ServiceError) as body:
            local_service.call(home, "POST", "/v1/remember", {"content": "z" * 70_000})
        assert body.value.status == 413
        assert "request body over 65536 bytes (limits.request_bytes)" in str(body.value)
        remote = RemoteEngine.over_socket(home)
        try:
            with pytest.raises(TooLargeError, match=r"limits\.content_chars"):
                remote.remember(MemoryDraft(content="w" * 1001))
            assert remote.remember(MemoryDraft(content="v" * 1000)).memory.content == "v" * 1000
        finally:
            remote.close()
    finally:
        stop_service(home, service)


@pytest.mark.parametrize("daemon", ["1", "0"])
def test_a_prompt_of_megabytes_gets_context_from_its_start(tmp_path: Path, daemon: str) -> None:
    home = tmp_path / "home"
    service = start_service(home) if daemon == "1" else None
    try:
        fact = "The atlas API on port 8443 answers GET /health with 200 when it is up"
        remote = run(home, "remember", fact, CORTEX_DAEMON=daemon)
        assert remote.returncode == 0, remote.stderr
        prompt = (
            "which port does the atlas API use? here is the log:\n" + "GET /health 200\n" * 320_000
        )
        assert len(prompt) > 5_000_000
        answer = run(home, "--hook", "pre", stdin=prompt_event(prompt), CORTEX_DAEMON=daemon)
        assert answer.returncode == 0 and answer.stderr == ""
        context = json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "port 8443" in context
    finally:
        if service is not None:
            stop_service(home, service)
