"""Claude Code's hooks: events named by `hook_event_name`, context given on
UserPromptSubmit and SessionStart as `hookSpecificOutput.additionalContext`, and a
turn put together from the hooks' events and the session's transcript (`transcript.py`;
why both: `agent_turn/sessions.py`).

Standard library only, and no `typing`: the hook process runs it.
"""

from __future__ import annotations

from cortex_tui.agent_turn.events import HookEvent, string_field
from cortex_tui.errors import InvalidInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cortex_tui.agent_turn.agents.claude_code.transcript import Turn
    from cortex_tui.agent_turn.sessions import SessionTurns, TurnPlan
    from cortex_tui.log_protocol import Log
    from cortex_tui.spool.durable import Offsets

CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""The events whose output Claude Code adds to the conversation."""
RESTARTS = ("resume", "compact")
"""A SessionStart's sources after which the conversation lost its context."""


class ClaudeCode:
    name = "claude"
    pre_fields: tuple[str, ...] = (
        "hook_event_name",
        "hookEventName",
        "prompt",
        "cwd",
        "session_id",
        "transcript_path",
        "source",
    )
    keeps_sessions = True

    def recognises(self, data: dict[str, Any]) -> bool:
        return bool(_event_name(data))

    def event(self, data: dict[str, Any]) -> HookEvent:
        return HookEvent(
            self,
            event=_event_name(data),
            prompt=string_field(data.get("prompt")),
            cwd=string_field(data.get("cwd")) or None,
            session_id=string_field(data.get("session_id")) or None,
            transcript_path=string_field(data.get("transcript_path")) or None,
            source=string_field(data.get("source")) or None,
            stop_hook_active=bool(data.get("stop_hook_active")),
            agent_id=string_field(data.get("agent_id")) or None,
            last_assistant_message=string_field(data.get("last_assistant_message")) or None,
        )

    def gives_context(self, event: HookEvent) -> bool:
        return event.event in CONTEXT_EVENTS

    def session_start(self, event: HookEvent) -> str | None:
        if event.event != "SessionStart":
            return None
        return event.source if event.source in RESTARTS else "session start"

    def prompt_at_start(self, event: HookEvent, log: Log) -> str:
        """The session's last prompt after a resume or a compaction; "" when the
        transcript cannot be read (a path that is not a regular file gets no context,
        never a hung or exhausted worker)."""
        if event.source not in RESTARTS or not event.transcript_path:
            return ""
        from cortex_tui.agent_turn.agents.claude_code.transcript import last_user_text

        try:
            return last_user_text(event.transcript_path)
        except InvalidInputError as exc:
            log.info("no prompt from the transcript: %s", exc)
            return ""

    def kept_prompt(self, event: HookEvent) -> str | None:
        return event.prompt if event.event == "UserPromptSubmit" else None

    def captures(self, event: HookEvent) -> bool:
        """A Stop re-entered by its own hook, or a subagent's, is not a turn of the
        person's conversation."""
        return not (event.stop_hook_active or event.agent_id)

    def new_turns(self, event: HookEvent, home: Path, log: Log) -> TranscriptTurn:
        from cortex_tui.agent_turn.agents.claude_code.transcript import conversation_text
        from cortex_tui.agent_turn.project import safe_name
        from cortex_tui.agent_turn.sessions import SessionTurns
        from cortex_tui.spool.durable import Offsets

        kept = SessionTurns(home, event.session_id)
        read = TranscriptRead(Offsets(home / "spool" / "offsets"), safe_name(event.session_id))
        transcript = read.new_turns(event.transcript_path, log)
        plan = kept.plan(transcript, event.last_assistant_message)
        return TranscriptTurn(conversation_text(plan.turns), kept, plan, read)

    def render(self, event: HookEvent, context: str, text_format: bool) -> str:
        if text_format or event.event not in CONTEXT_EVENTS:
            return context
        import json

        payload = {
            "hookSpecificOutput": {"hookEventName": event.event, "additionalContext": context}
        }
        return json.dumps(payload, ensure_ascii=False)

    def starts_session_raw(self, event: bytes) -> bool:
        """Its name as the value of `hook_event_name`, whatever the spacing around the
        colon."""
        at = event.find(b'"hook_event_name"')
        if at < 0:
            return False
        rest = event[at + len(b'"hook_event_name"') :].lstrip(b" \t\r\n")
        return rest.startswith(b":") and rest[1:].lstrip(b" \t\r\n").startswith(b'"SessionStart"')


class TranscriptRead:
    """Where a session's transcript was read up to, and where this read ends (none when
    the event names no transcript, or it cannot be read yet)."""

    __slots__ = ("end", "offsets", "session")

    def __init__(self, offsets: Offsets, session: str) -> None:
        self.offsets = offsets
        self.session = session
        self.end: int | None = None

    def new_turns(self, path: str | None, log: Log) -> list[Turn]:
        """The transcript's lines not captured yet."""
        if not path:
            return []
        from cortex_tui.agent_turn.agents.claude_code.transcript import read_transcript_turns

        try:
            turns, self.end = read_transcript_turns(path, self.offsets.get(self.session))
        except InvalidInputError as exc:
            log.info("transcript not read: %s", exc)
            return []
        return turns

    def settle(self) -> None:
        if self.end is not None:
            self.offsets.set(self.session, self.end)


class TranscriptTurn:
    """The turn a Stop ends, as one text; once spooled, the transcript's offset moves
    past it and the session's kept prompt and owed lines are settled."""

    __slots__ = ("_kept", "_plan", "_read", "texts")

    def __init__(self, text: str, kept: SessionTurns, plan: TurnPlan, read: TranscriptRead) -> None:
        self.texts = [text]
        self._kept = kept
        self._plan = plan
        self._read = read

    def settle(self) -> None:
        self._read.settle()
        self._kept.settle(self._plan)


def _event_name(data: dict[str, Any]) -> str:
    return string_field(data.get("hook_event_name") or data.get("hookEventName"))


CLAUDE_CODE = ClaudeCode()
