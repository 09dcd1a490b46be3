"""The in-process pre hook and an MCP recall keep their records too; the MCP `given`
tool answers what the last prompt got. Real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from tests.mcp_surface.test_mcp_server import call, session
from tests.server.conftest import remember_offline
from tests.server.test_service import prompt_event, run

GITHUB_TOKEN = "ghp_R8mQ2vXk9LtY4wZp7NcB3sHd6FjA1uE5gK0o"
FACTS = [
    "The atlas API listens on port 8443 behind the ingress",
    "Atlas deploys go out through the helm chart in infra/atlas",
    "Priya Raman is the tech lead of atlas",
]


def context_of(hook_output: str) -> str:
    return str(json.loads(hook_output)["hookSpecificOutput"]["additionalContext"])


def test_the_in_process_hook_records_too_unless_turned_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    remember_offline(home, FACTS[2])
    hook = run(
        home,
        "--hook",
        "pre",
        stdin=prompt_event("who is the tech lead of atlas?", "s-9"),
        CORTEX_DAEMON="0",
    )
    assert "Priya" in context_of(hook.stdout)
    turns = json.loads(run(home, "given", "--json", CORTEX_DAEMON="0").stdout)
    assert [(turn["session"], turn["context"]) for turn in turns] == [
        ("s-9", context_of(hook.stdout))
    ]

    off = tmp_path / "off"
    remember_offline(off, FACTS[2])
    run(
        off,
        "--hook",
        "pre",
        stdin=prompt_event("who is the tech lead of atlas?", "s-9"),
        CORTEX_DAEMON="0",
        CORTEX_INJECTIONS__ENABLED="false",
    )
    assert not (off / "injections").exists()


def test_the_command_s_old_name_turns_still_shows_the_records_for_one_release(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    remember_offline(home, FACTS[2])
    event = prompt_event("who is the tech lead of atlas?", "s-9")
    run(home, "--hook", "pre", stdin=event, CORTEX_DAEMON="0")
    given = run(home, "given", "--explain", CORTEX_DAEMON="0")
    old = run(home, "turns", "--explain", CORTEX_DAEMON="0")
    assert (given.returncode, old.returncode) == (0, 0), old.stderr
    assert given.stdout.startswith("session s-9  claude") and "Priya" in given.stdout
    assert old.stdout == given.stdout
    helped = " ".join(run(home, "turns", "--help").stdout.split())
    assert "usage: cortex-tui given" in helped and "`turns` is this command's old name" in helped


def test_the_mcp_given_tool_answers_what_the_last_prompt_got(tmp_path: Path) -> None:
    home = tmp_path / "home"
    remember_offline(home, FACTS[0])
    hook = run(
        home, "--hook", "pre", stdin=prompt_event("atlas API port?", "s-1"), CORTEX_DAEMON="0"
    )

    async def use(client: Client) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        await call(client, "recall", query="where does atlas deploy from?")
        last = await call(client, "given")
        with_recalls = await call(client, "given", include_recalls=True, limit=5)
        nothing = await call(client, "given", session="no-such-session")
        return last, with_recalls, nothing

    last, with_recalls, nothing = session(home, use)
    [turn] = last["turns"]
    assert turn["agent"] == "claude" and turn["context"] == context_of(hook.stdout)
    assert turn["given"][0]["breakdown"]["final"] > 0
    assert [turn["agent"] for turn in with_recalls["turns"]] == ["mcp", "claude"]
    mcp_turn = with_recalls["turns"][0]
    assert mcp_turn["trigger"] == "recall" and mcp_turn["prompt"] == "where does atlas deploy from?"
    assert mcp_turn["given"] and not mcp_turn["left_out"], "a tool's answer has no budget"
    assert nothing["turns"] == [] and "no-such-session" in nothing["note"]
