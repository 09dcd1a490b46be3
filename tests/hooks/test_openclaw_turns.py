"""OpenClaw's `agent_end` carries the session's whole history each time: the post hook
spools only the turns it has not spooled for that session before."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.spooling import spool_turn
from cortex_tui.spool.durable import Spool

LOG = logging.getLogger("test")


def user(text: str, blocks: bool = False) -> dict[str, Any]:
    content: Any = [{"type": "text", "text": text}] if blocks else text
    return {"role": "user", "content": content}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def agent_end(session: str, messages: list[dict[str, Any]]) -> str:
    return json.dumps({"success": True, "sessionId": session, "messages": messages})


def spooled(home: Path) -> list[str]:
    return [entry["text"] for entry in Spool(home / "spool", LOG).pending()]


def end_turn(home: Path, session: str, messages: list[dict[str, Any]]) -> None:
    assert spool_turn(parse_event(agent_end(session, messages)), home, LOG) is not None


FIRST = [user("We deploy harbor with Argo CD from now on.", blocks=True), assistant("Noted.")]
SECOND = [user("Kwame owns the Argo CD setup."), assistant("Got it, Kwame.")]
THIRD = [user("Which tool deploys harbor?"), assistant("Argo CD.")]


def test_each_turn_of_a_session_is_spooled_once(tmp_path: Path) -> None:
    history: list[dict[str, Any]] = []
    for turn in (FIRST, SECOND, THIRD):
        history += turn
        end_turn(tmp_path, "s1", history)
    assert spooled(tmp_path) == [
        "User: We deploy harbor with Argo CD from now on.\n\nAssistant: Noted.",
        "User: Kwame owns the Argo CD setup.\n\nAssistant: Got it, Kwame.",
        "User: Which tool deploys harbor?\n\nAssistant: Argo CD.",
    ]
    end_turn(tmp_path, "s1", history)  # the same history again: nothing new
    assert len(spooled(tmp_path)) == 3


def test_a_turn_whose_end_was_missed_is_spooled_with_the_next(tmp_path: Path) -> None:
    end_turn(tmp_path, "s1", FIRST)
    end_turn(tmp_path, "s1", FIRST + SECOND + THIRD)  # the second turn's event never came
    assert [text.split("\n")[0] for text in spooled(tmp_path)] == [
        "User: We deploy harbor with Argo CD from now on.",
        "User: Kwame owns the Argo CD setup.",
        "User: Which tool deploys harbor?",
    ]


def test_sessions_are_counted_apart(tmp_path: Path) -> None:
    end_turn(tmp_path, "s1", FIRST)
    end_turn(tmp_path, "s2", FIRST + SECOND)
    assert len(spooled(tmp_path)) == 3  # s2's first turn is s2's: its own entry


def test_a_compacted_history_gives_its_last_turn_only(tmp_path: Path) -> None:
    end_turn(tmp_path, "s1", FIRST + SECOND)
    summary = user("Summary of the conversation so far: harbor moved to Argo CD.")
    end_turn(tmp_path, "s1", [summary, assistant("Understood."), *THIRD])
    assert spooled(tmp_path)[-1] == "User: Which tool deploys harbor?\n\nAssistant: Argo CD."
    assert len(spooled(tmp_path)) == 3


def test_our_context_block_and_tool_traffic_are_not_captured(tmp_path: Path) -> None:
    block = "<cortex_memories>\n- [m1] Harbor deploys with Flux.\n</cortex_memories>\n\n"
    messages = [
        user(block + "Switch harbor to Argo CD.", blocks=True),
        {"role": "assistant", "content": [{"type": "toolCall", "name": "exec", "arguments": {}}]},
        {"role": "toolResult", "content": [{"type": "text", "text": "kubectl output"}]},
        assistant("Switched."),
    ]
    end_turn(tmp_path, "s1", messages)
    assert spooled(tmp_path) == ["User: Switch harbor to Argo CD.\n\nAssistant: Switched."]


def test_a_prompt_that_was_only_our_block_starts_no_turn(tmp_path: Path) -> None:
    messages = [
        user("Use pnpm in harbor."),
        assistant("OK."),
        user("<cortex_memories>\n- [m1] x\n</cortex_memories>"),
        assistant("Anything else?"),
    ]
    end_turn(tmp_path, "s1", messages)
    assert spooled(tmp_path) == [
        "User: Use pnpm in harbor.\n\nAssistant: OK.\n\nAssistant: Anything else?"
    ]
