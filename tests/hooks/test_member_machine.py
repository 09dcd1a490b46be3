"""A member's machine (`CORTEX_URL`, `CORTEX_API_KEY`) with a real team server: its hooks,
CLI and MCP server use the server and keep no store of their own; a turn that ends
while the server is down waits in the local spool and goes with the next turn once the
server is back; a prompt while it is down gets nothing, at once, and the agent goes on."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from mcp import Client

from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tenants.registry import TenantRegistry
from tests.mcp_surface.test_mcp_server import call, session
from tests.server.conftest import service_env, start_service, stop_service
from tests.server.team_server import cortex, free_port, team_server

LOG = logging.getLogger("test")
PROMPT = "which port does the atlas API listen on these days?"


def member_env(laptop: Path, url: str, key: str, **extra: str) -> dict[str, str]:
    return service_env(laptop, CORTEX_URL=url, CORTEX_API_KEY=key, **extra)


def prompt_event(cwd: Path, text: str = PROMPT) -> str:
    return json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "session_id": "s-1",
            "prompt": text,
            "cwd": str(cwd),
        }
    )


def stop_event(cwd: Path, transcript: Path, reply: str) -> str:
    return json.dumps(
        {
            "hook_event_name": "Stop",
            "session_id": "s-1",
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "stop_hook_active": False,
            "last_assistant_message": reply,
        }
    )


def say(transcript: Path, user: str, reply: str, number: int) -> None:
    lines: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": user}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": f"m{number}",
                "content": [{"type": "text", "text": reply}],
            },
        },
    ]
    with transcript.open("a") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")


def contents(engine: RemoteEngine) -> list[str]:
    return [m.content for m in engine.list_memories(MemoryFilter(), limit=100).memories]


def test_the_hooks_and_cli_use_the_server_and_keep_no_store(tmp_path: Path) -> None:
    laptop = tmp_path / "laptop"
    with team_server(tmp_path / "server") as server:
        env = member_env(laptop, server.url, server.add_tenant("ana"))
        made = cortex(env, "remember", "The atlas API listens on port 8443")
        assert made.returncode == 0, made.stderr
        answer = cortex(env, "--hook", "pre", stdin=prompt_event(tmp_path))
        assert answer.returncode == 0 and "port 8443" in answer.stdout
        assert (
            json.loads(answer.stdout)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
        )
        assert "pre hook (server) done" in (laptop / "logs" / "hooks.log").read_text()
        # Another member's key reaches another tenant: nothing of ana's.
        ben = member_env(laptop, server.url, server.add_tenant("ben"))
        assert json.loads(cortex(ben, "list", "--json").stdout)["total"] == 0
        assert cortex(ben, "--hook", "pre", stdin=prompt_event(tmp_path)).stdout == ""
        wrong = cortex(member_env(laptop, server.url, "ctk_0000000000000000_" + "x" * 43), "list")
        assert wrong.returncode == 1
        assert wrong.stderr.count("\n") == 1 and "refused the API key" in wrong.stderr
    assert not (laptop / "store").exists()
    assert not (laptop / "cortex.sock").exists()


def test_a_turn_waits_in_the_local_spool_while_the_server_is_down(tmp_path: Path) -> None:
    laptop, server_home = tmp_path / "laptop", tmp_path / "server"
    port = free_port()
    key = TenantRegistry(server_home).add("ana")[1]
    env = member_env(laptop, f"http://127.0.0.1:{port}", key)
    transcript = tmp_path / "session.jsonl"
    first = "Decision: from now on the harbor service deploys with Argo CD."
    say(transcript, first, "Understood, Argo CD for harbor.", 1)
    started = time.monotonic()
    ended = cortex(env, "--hook", "post", stdin=stop_event(tmp_path, transcript, "Understood"))
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "", "")
    asked = cortex(env, "--hook", "pre", stdin=prompt_event(tmp_path, "how does harbor deploy?"))
    assert (asked.returncode, asked.stdout) == (0, "")
    assert time.monotonic() - started < 30  # neither waited for a server that is not there
    waiting = Spool(laptop / "spool", LOG).pending()
    assert [first in entry["text"] for entry in waiting] == [True]
    assert "out of reach" in (laptop / "logs" / "hooks.log").read_text()

    process = start_service(server_home, "--tcp", str(port), "--tenants")
    try:
        second = "Also: the harbor staging database is restored every Monday."
        say(transcript, second, "Noted: Monday restores.", 2)
        sent = cortex(env, "--hook", "post", stdin=stop_event(tmp_path, transcript, "Noted"))
        assert sent.returncode == 0
        assert Spool(laptop / "spool", LOG).pending() == []
        ana = RemoteEngine.over_tcp(f"http://127.0.0.1:{port}", key)
        deadline = time.monotonic() + 60
        while not (
            any("Argo CD" in text for text in contents(ana))
            and any("Monday" in text for text in contents(ana))
        ):
            assert time.monotonic() < deadline, contents(ana)
            time.sleep(0.2)
        ana.close()
    finally:
        stop_service(server_home, process)
    assert not (laptop / "store").exists()


def test_an_mcp_memory_said_while_the_server_is_down_is_sent_later(tmp_path: Path) -> None:
    laptop, server_home = tmp_path / "laptop", tmp_path / "server"
    port = free_port()
    key = TenantRegistry(server_home).add("ana")[1]
    url = f"http://127.0.0.1:{port}"

    async def remember(client: Client) -> dict[str, Any]:
        return await call(client, "remember", content="The ledger service pages Priya first")

    answer = session(laptop, remember, CORTEX_URL=url, CORTEX_API_KEY=key, CORTEX_DAEMON="1")
    assert answer["queued"] is True
    assert len(Spool(laptop / "spool", LOG).pending()) == 1
    process = start_service(server_home, "--tcp", str(port), "--tenants")
    try:
        transcript = tmp_path / "session.jsonl"
        say(transcript, "What is new?", "Nothing new.", 1)
        env = member_env(laptop, url, key)
        cortex(env, "--hook", "post", stdin=stop_event(tmp_path, transcript, "Nothing"))
        ana = RemoteEngine.over_tcp(url, key)
        deadline = time.monotonic() + 60
        while "The ledger service pages Priya first" not in contents(ana):
            assert time.monotonic() < deadline, contents(ana)
            time.sleep(0.2)
        ana.close()
    finally:
        stop_service(server_home, process)
