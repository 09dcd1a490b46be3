"""OpenClaw's plugin (`plugin/index.js`): its events carry `type` and `sessionId`, context
is given before a prompt is built, as `prependContext`, and `agent_end` hands over the
session's whole history, whose turns not captured yet are taken (`session.py`).

Standard library only, and no `typing`: the hook process runs it.
"""

from __future__ import annotations

from cortex_tui.agent_turn.agents.defaults import PromptEvents
from cortex_tui.agent_turn.events import HookEvent, string_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cortex_tui.agent_turn.agents.openclaw.session import Message, OpenClawSession
    from cortex_tui.log_protocol import Log

MARKS = ("sessionId", "messages")
"""Fields only OpenClaw's events carry (Claude Code's say `session_id`)."""
EVENT_FIELDS = ("type", "event")
"""Where an OpenClaw event says which it is (`event` in earlier builds)."""


class OpenClaw(PromptEvents):
    """No event starts a session (its first prompt gets the standing context instead,
    `agent_turn/plan.py: note_pre`), and no prompt is kept for its turn: `agent_end`
    carries the whole history, the prompt included."""

    name = "openclaw"
    pre_fields: tuple[str, ...] = ("type", "event", "prompt", "cwd", "sessionId", "session_id")
    keeps_sessions = True

    def recognises(self, data: dict[str, Any]) -> bool:
        return any(mark in data for mark in MARKS) or any(
            string_field(data.get(field)) for field in EVENT_FIELDS
        )

    def event(self, data: dict[str, Any]) -> HookEvent:
        messages = data.get("messages")
        return HookEvent(
            self,
            event=string_field(data.get("type") or data.get("event")),
            prompt=string_field(data.get("prompt")),
            cwd=string_field(data.get("cwd")) or None,
            session_id=string_field(data.get("sessionId") or data.get("session_id")) or None,
            messages=[m for m in messages if isinstance(m, dict)]
            if isinstance(messages, list)
            else [],
        )

    def new_turns(self, event: HookEvent, home: Path, log: Log) -> HistoryTurns:
        from cortex_tui.agent_turn.agents.openclaw.session import OpenClawSession
        from cortex_tui.agent_turn.project import safe_name

        kept = OpenClawSession(str(home / "spool"), safe_name(event.session_id))
        return HistoryTurns(kept, event.messages)

    def render(self, event: HookEvent, context: str, text_format: bool) -> str:
        """Always the plugin's JSON: it is the only reader of this output."""
        import json

        return json.dumps({"prependContext": context}, ensure_ascii=False)


class HistoryTurns:
    """The turns of `agent_end`'s history after the part handed over; once spooled, the
    session records its last message as handed over."""

    __slots__ = ("_kept", "_messages", "texts")

    def __init__(self, kept: OpenClawSession, messages: list[Message]) -> None:
        self._kept = kept
        self._messages = messages
        self.texts = kept.new_turns(messages)

    def settle(self) -> None:
        self._kept.captured(self._messages)


OPENCLAW = OpenClaw()
