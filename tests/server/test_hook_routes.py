"""The hooks' own routes: the agent's event in, the hook's output out (pre), or the turn
spooled by the service (post), so a hook process is little more than an interpreter
start (one of each runs on every agent turn)."""

from __future__ import annotations

import json
import logging
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest

from cortex_tui.clients import local_service
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.spool.durable import Spool
from tests.server.conftest import service_env
from tests.server.test_service import prompt_event, run, wait_for

HEAVY_FOR_A_HOOK = {
    "json",
    "re",
    "enum",
    "pathlib",
    "socket",
    "threading",
    "typing",
    "logging",
    "dataclasses",
    "tomllib",
    "argparse",
    "subprocess",
    "http",
    "hashlib",
    "datetime",
    "platformdirs",
}
"""Modules (2-20 ms of CPU each in a hook process here) a hook through a running
service does without."""


def test_hooks_through_the_service_load_only_what_they_need(
    service_home: Path, remote: RemoteEngine, tmp_path: Path
) -> None:
    remote.remember(MemoryDraft(content="The Atlas API listens on port 8443"))
    pre = _hook_importing(
        "pre", prompt_event("which port does the atlas API listen on"), service_home
    )
    assert "port 8443" in json.loads(pre.stdout)["hookSpecificOutput"]["additionalContext"]
    transcript = tmp_path / "session.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Where do the billing logs go?"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Billing logs are shipped to Loki."}],
            },
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    stop = {"hook_event_name": "Stop", "session_id": "s-7", "transcript_path": str(transcript)}
    post = _hook_importing("post", json.dumps(stop), service_home)
    assert post.stdout == ""
    wait_for(lambda: "Loki" in remote.recall(RecallRequest(query="billing logs")).context)
    assert Spool(service_home / "spool", logging.getLogger()).pending() == []


def _hook_importing(kind: str, event: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run a hook with `-X importtime`; fails the test if it loaded a heavy module."""
    hook = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cortex_tui", "--hook", kind],
        input=event,
        capture_output=True,
        text=True,
        env=service_env(home),
        check=False,
        timeout=60,
    )
    assert hook.returncode == 0
    imported = {
        line.rpartition("|")[2].strip().split(".")[0]
        for line in hook.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "cortex_tui" in imported
    assert sorted(imported & HEAVY_FOR_A_HOOK) == [], kind
    return hook


def test_text_format_and_a_lone_surrogate_escape_still_get_context(
    service_home: Path, remote: RemoteEngine
) -> None:
    remote.remember(MemoryDraft(content="The Atlas API listens on port 8443"))
    plain = run(
        service_home,
        "--hook",
        "pre",
        "--format",
        "text",
        stdin=prompt_event("which port does the atlas API listen on"),
    )
    assert plain.returncode == 0
    assert plain.stdout.startswith("<cortex_memories>") and "port 8443" in plain.stdout
    # JSON allows an escaped lone surrogate; the route cleans it instead of refusing it.
    event = prompt_event("which port does the atlas API \ud800 listen on")
    assert "\\ud800" in event
    odd = run(service_home, "--hook", "pre", stdin=event)
    assert odd.returncode == 0
    assert "port 8443" in json.loads(odd.stdout)["hookSpecificOutput"]["additionalContext"]


class _EarlierService(BaseHTTPRequestHandler):
    """What a service started by an earlier version answers: it has no raw hook
    routes (FastAPI's own 404), and it stops when asked."""

    asked: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.asked.append(self.path)
        if self.path == "/v1/shutdown":
            self._answer(202, {"stopping": True})
        else:
            self._answer(404, {"detail": "Not Found"})

    def _answer(self, status: int, payload: dict[str, object]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self) -> str:
        return "unix"  # a Unix socket's peer has no host to log

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def earlier_service(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    _EarlierService.asked = []
    server = socketserver.UnixStreamServer(local_service.socket_path(home), _EarlierService)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield home
    server.shutdown()
    server.server_close()


def test_a_service_from_an_earlier_version_is_asked_to_stop(earlier_service: Path) -> None:
    """After an upgrade, the old service lives on while hooks keep it busy; the first
    pre hook that finds it asks it to stop, so the next turn starts the current one."""
    hook = run(
        earlier_service,
        "--hook",
        "pre",
        stdin=prompt_event("which port does the atlas API listen on"),
    )
    assert hook.returncode == 0 and hook.stdout == "" and hook.stderr == ""
    assert _EarlierService.asked == [local_service.PRE_HOOK_ROUTE, "/v1/shutdown"]
    log = (earlier_service / "logs" / "hooks.log").read_text()
    assert "the running service predates this hook; restarting it" in log


def test_a_post_hook_spools_its_turn_itself_when_the_service_does_not(
    earlier_service: Path,
) -> None:
    event = {
        "hook_event_name": "Stop",
        "session_id": "s-3",
        "last_assistant_message": "The nightly backup runs at 02:00 UTC.",
    }
    hook = run(earlier_service, "--hook", "post", stdin=json.dumps(event))
    assert hook.returncode == 0 and hook.stdout == "" and hook.stderr == ""
    assert _EarlierService.asked[0] == local_service.POST_HOOK_ROUTE
    pending = Spool(earlier_service / "spool", logging.getLogger()).pending()
    assert [entry["text"] for entry in pending] == [
        "Assistant: The nightly backup runs at 02:00 UTC."
    ]


def test_a_lone_surrogate_escape_in_a_post_hook_event_is_cleaned_not_refused(
    service_home: Path, remote: RemoteEngine
) -> None:
    event = json.dumps(
        {
            "hook_event_name": "Stop",
            "session_id": "s-4",
            "last_assistant_message": "The render cache \ud800 is flushed every 5 minutes.",
        }
    )
    assert "\\ud800" in event
    hook = run(service_home, "--hook", "post", stdin=event)
    assert hook.returncode == 0 and hook.stdout == ""
    cache = RecallRequest(query="render cache")
    wait_for(lambda: "flushed every 5 minutes" in remote.recall(cache).context)
    assert "did not spool" not in (service_home / "logs" / "hooks.log").read_text()
