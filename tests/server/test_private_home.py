"""The data home is private: after the CLI, both hooks and the service have run under a
permissive umask (022, the usual default), no folder or file under the home is open to
group or others; a home an older version left open is tightened on start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cortex_tui.private import open_to_others
from tests.server.conftest import service_env, start_service, stop_service


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """Every process the test starts inherits 022, as from an ordinary login shell."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def run(home: Path, *args: str, stdin: str = "", daemon: bool = True) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        input=stdin,
        env=service_env(home, CORTEX_DAEMON="1" if daemon else "0"),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_nothing_under_the_home_is_open_to_others_after_a_full_run(
    tmp_path: Path, loose_umask: None
) -> None:
    home = tmp_path / "home"
    process = start_service(home)
    try:
        run(home, "remember", "The deploy key for atlas lives in the team vault")
        transcript = tmp_path / "t.jsonl"
        turn = [
            {"type": "user", "message": {"role": "user", "content": "Always run make lint."}},
            {"type": "assistant", "message": {"role": "assistant", "content": "Noted."}},
        ]
        transcript.write_text("".join(json.dumps(line) + "\n" for line in turn))
        stop = {"hook_event_name": "Stop", "session_id": "s1", "transcript_path": str(transcript)}
        run(home, "--hook", "post", stdin=json.dumps(stop))
        prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "where is the deploy key"}
        run(home, "--hook", "pre", stdin=json.dumps(prompt))
        run(home, "export", "--output", str(home / "export.jsonl"))
        run(home, "stats")
    finally:
        stop_service(home, process)
    checked = [home, *home.rglob("*")]
    assert {"store", "spool", "logs", "export.jsonl"} <= {p.name for p in home.iterdir()}
    assert len(checked) > 100  # the store's shard files are among them
    assert open_to_others(home) == []


def test_a_home_left_open_by_an_older_version_is_tightened_once(
    tmp_path: Path, loose_umask: None
) -> None:
    home = tmp_path / "home"
    run(home, "remember", "The staging database password rotates monthly", daemon=False)
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert len(open_to_others(home)) > 100

    said = run(home, "stats", daemon=False)

    assert open_to_others(home) == []
    assert said.count("private (they were open to other users)") == 1
    assert "made " in said and str(home) in said
    assert "private" not in run(home, "stats", daemon=False)  # nothing left to change
