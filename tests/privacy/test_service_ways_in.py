"""Through the service — its HTTP API, the hooks it answers, the MCP server that reaches it
— no secret is kept: not in the store, not in what waits in the spool, not in a prompt
kept for a Stop that never comes; and the context a later prompt gets carries none."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from mcp import Client

from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import MemoryDraft
from cortex_tui.spool.durable import Spool
from tests.hooks.test_hooks import hook, repo
from tests.mcp_surface.test_mcp_server import call, session
from tests.privacy.corpus import SECRETS, in_code, in_prose
from tests.privacy.leaks import files_holding, fragments, payloads_holding
from tests.server.conftest import start_service, stop_service

VALUES = [s.value for s in SECRETS]
THROUGH_SERVICE = {"CORTEX_DAEMON": "1"}


def _leaked(text: str) -> list[str]:
    return [v for v in VALUES if any(part in text for part in fragments(v))]


def _drained(home: Path) -> None:
    spool = Spool(home / "spool", logging.getLogger("tests"))
    deadline = time.monotonic() + 60
    while spool.pending():
        assert time.monotonic() < deadline, "the service did not capture the spooled turns"
        time.sleep(0.05)


def _said(session: str, cwd: Path, prompt: str) -> str:
    event = {"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": prompt}
    return json.dumps({**event, "cwd": str(cwd)})


def _stopped(session: str, cwd: Path, reply: str) -> str:
    event = {"hook_event_name": "Stop", "session_id": session, "stop_hook_active": False}
    return json.dumps({**event, "cwd": str(cwd), "last_assistant_message": reply})


def test_through_the_service_hooks_and_mcp_no_secret_is_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = repo(tmp_path, "harbor")
    process = start_service(home)
    try:
        remote = RemoteEngine.over_socket(home)
        try:
            for secret in SECRETS[:10]:
                remote.remember(MemoryDraft(content=in_prose(secret)))
            for index, secret in enumerate(SECRETS[10:16]):
                turn = f"User: {in_code(secret)}\nAssistant: Noted for staging."
                remote.capture(turn, session_id=f"api-{index}")
            for secret in SECRETS[16:26]:
                said = f"From now on staging uses this: {secret.said}"
                asked = hook(home, "pre", _said("hooked", project, said), env=THROUGH_SERVICE)
                assert asked.returncode == 0
                reply = "Understood, staging uses it from now on."
                done = hook(home, "post", _stopped("hooked", project, reply), env=THROUGH_SERVICE)
                assert done.returncode == 0
            unanswered = _said("no-stop", project, in_prose(SECRETS[26]))
            assert hook(home, "pre", unanswered, env=THROUGH_SERVICE).returncode == 0

            async def remember(client: Client) -> None:
                for secret in SECRETS[27:]:
                    await call(client, "remember", content=in_prose(secret))

            session(home, remember, **THROUGH_SERVICE)
            _drained(home)
            later = _said("later", project, "what do the staging deploys use from now on?")
            context = hook(home, "pre", later, env=THROUGH_SERVICE).stdout
            assert "[secret: " in context and not _leaked(context)
            exported = "\n".join(remote.export())
            assert exported.count("[secret: ") >= len(SECRETS) // 2
            assert not _leaked(exported)
        finally:
            remote.close()
    finally:
        stop_service(home, process)
    assert not payloads_holding(home, VALUES)
    assert not files_holding(home, VALUES)
