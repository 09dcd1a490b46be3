"""Every agent adapter through the same cases: its events are its own, a prompt is
planned for it, a turn it ends is spooled once with both sides of the conversation, and
its output carries the context in the form the agent reads. An adapter added to the
registry without its cases here fails `test_every_adapter_has_its_cases`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.agent_turn.agents import ADAPTERS, EVERY_ADAPTER
from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.plan import CONTEXT_BLOCK_TAG, note_pre, plan_pre
from cortex_tui.agent_turn.spooling import spool_turn
from cortex_tui.spool.durable import Spool

LOG = logging.getLogger("test")
PROMPT = "Which port does the gateway API listen on in staging?"
REPLY = "The gateway API listens on port 8443 in staging."
BLOCK = f"{CONTEXT_BLOCK_TAG}\n- [fact] the gateway listens on 8443\n</cortex_memories>"


@dataclass(frozen=True)
class Cases:
    """An agent's events as it sends them, and how its output is read back."""

    prompt: Callable[[str], str]
    """The event before a prompt, made for a working folder."""
    end: Callable[[str], str]
    """The event after that prompt's turn (the reply in it, or in what it names)."""
    context_in: Callable[[str], str]
    """The context block, read back from the hook's output."""
    start: str | None = None
    """An event that starts a session, when the agent sends one."""


def claude_output(output: str) -> str:
    payload = json.loads(output)["hookSpecificOutput"]
    assert payload["hookEventName"] == "UserPromptSubmit"
    return str(payload["additionalContext"])


def openclaw_output(output: str) -> str:
    return str(json.loads(output)["prependContext"])


CASES: dict[str, Cases] = {
    "claude": Cases(
        prompt=lambda cwd: json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPT,
                "session_id": "s1",
                "cwd": cwd,
            }
        ),
        end=lambda cwd: json.dumps(
            {
                "hook_event_name": "Stop",
                "session_id": "s1",
                "cwd": cwd,
                "last_assistant_message": REPLY,
            }
        ),
        context_in=claude_output,
        start=json.dumps(
            {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
        ),
    ),
    "openclaw": Cases(
        prompt=lambda cwd: json.dumps(
            {"type": "before_prompt_build", "prompt": PROMPT, "sessionId": "s1", "cwd": cwd}
        ),
        end=lambda cwd: json.dumps(
            {
                "type": "agent_end",
                "sessionId": "s1",
                "cwd": cwd,
                "messages": [
                    {"role": "user", "content": PROMPT},
                    {"role": "assistant", "content": [{"type": "text", "text": REPLY}]},
                ],
            }
        ),
        context_in=openclaw_output,
    ),
    "plain": Cases(
        prompt=lambda cwd: PROMPT,
        end=lambda cwd: f"User: {PROMPT}\n\nAssistant: {REPLY}",
        context_in=lambda output: output,
    ),
}


def adapter_cases() -> list[Any]:
    return [
        pytest.param(adapter, CASES[adapter.name], id=adapter.name) for adapter in EVERY_ADAPTER
    ]


def test_every_adapter_has_its_cases() -> None:
    assert sorted(adapter.name for adapter in EVERY_ADAPTER) == sorted(CASES)
    assert len({adapter.name for adapter in EVERY_ADAPTER}) == len(EVERY_ADAPTER)


@pytest.mark.parametrize(("adapter", "cases"), adapter_cases())
def test_its_events_are_its_own(adapter: Any, cases: Cases, tmp_path: Path) -> None:
    events = [cases.prompt(str(tmp_path)), cases.end(str(tmp_path))]
    events += [cases.start] if cases.start else []
    for raw in events:
        assert parse_event(raw).agent is adapter
        if raw.startswith("{"):
            claimed = [
                other.name
                for other in ADAPTERS
                if other is not adapter and other.recognises(json.loads(raw))
            ]
            assert claimed == [], f"{adapter.name}'s event recognised by {claimed}"


@pytest.mark.parametrize(("adapter", "cases"), adapter_cases())
def test_a_prompt_is_planned_for_its_agent(adapter: Any, cases: Cases, tmp_path: Path) -> None:
    event = parse_event(cases.prompt(str(tmp_path)))
    plan = plan_pre(event, 10, 2000, LOG)
    assert plan is not None
    assert (plan.query, plan.agent, plan.trigger) == (PROMPT, adapter.name, "prompt")
    assert not plan.starts_session
    assert not adapter.starts_session_raw(cases.prompt(str(tmp_path)).encode())


@pytest.mark.parametrize(("adapter", "cases"), adapter_cases())
def test_a_session_start_gets_the_standing_context(
    adapter: Any, cases: Cases, tmp_path: Path
) -> None:
    if cases.start is None:
        # An agent with no start event gets it with a session's first prompt (and that
        # prompt sent again, a retry), not with the next one.
        if not adapter.keeps_sessions:
            pytest.skip(f"{adapter.name} follows no session")
        first = parse_event(cases.prompt(str(tmp_path)))
        second = parse_event(cases.prompt(str(tmp_path)).replace("staging", "production"))
        plans = [plan_pre(event, 10, 2000, LOG) for event in (first, second)]
        for event, plan in zip((first, second), plans, strict=True):
            note_pre(event, tmp_path, LOG, plan)
        assert [plan.standing for plan in plans if plan] == [True, False]
        return
    event = parse_event(cases.start)
    plan = plan_pre(event, 10, 2000, LOG)
    assert plan is not None and plan.standing and plan.starts_session
    assert (plan.query, plan.agent) == ("", adapter.name)
    assert adapter.starts_session_raw(cases.start.encode())


@pytest.mark.parametrize(("adapter", "cases"), adapter_cases())
def test_a_turn_is_spooled_once_with_both_sides(adapter: Any, cases: Cases, tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", str(tmp_path)
    prompt = parse_event(cases.prompt(cwd))
    note_pre(prompt, home, LOG, plan_pre(prompt, 10, 2000, LOG))
    spool = spool_turn(parse_event(cases.end(cwd)), home, LOG)
    assert spool is not None
    (entry,) = spool.pending()
    assert entry["kind"] == "turn"
    assert PROMPT in entry["text"] and REPLY in entry["text"]
    spool_turn(parse_event(cases.end(cwd)), home, LOG)
    assert len(Spool(home / "spool", LOG).pending()) == 1


@pytest.mark.parametrize(("adapter", "cases"), adapter_cases())
def test_its_output_carries_the_context_as_its_agent_reads_it(
    adapter: Any, cases: Cases, tmp_path: Path
) -> None:
    event = parse_event(cases.prompt(str(tmp_path)))
    assert event.output("", text_format=False) == ""
    assert cases.context_in(event.output(BLOCK, text_format=False)) == BLOCK
