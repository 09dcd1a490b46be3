"""What an agent adapter answers: everything about an agent's turn that depends on the
agent. The turn's flow (`agent_turn/`) asks these and branches on nothing else.

Adding an agent is one subpackage holding an object of this shape and one line in the
registry (`agents/__init__.py`); `tests/hooks/test_agent_adapters.py` runs every adapter
through the same cases. Imported for type checking only: the adapters are plain classes,
so a hook process loads neither `typing` nor this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from cortex_tui.agent_turn.events import HookEvent
from cortex_tui.log_protocol import Log


class NewTurns(Protocol):
    """A post hook's turns not captured yet: the texts to spool, then `settle`, which
    records them as handed over once they are in the spool (so a crash in between
    spools them again, never loses them)."""

    texts: list[str]

    def settle(self) -> None: ...


class AgentAdapter(Protocol):
    name: str
    """The agent as records name it (`given`, the given record): claude, openclaw, plain."""
    pre_fields: tuple[str, ...]
    """The event's fields a pre hook reads: all an oversized event is cut down to."""
    keeps_sessions: bool
    """Whether its sessions are followed across turns (the standing context given once
    a session, a prompt kept until its turn is captured)."""

    def recognises(self, data: dict[str, Any]) -> bool:
        """Whether a JSON event is this agent's, by fields only it sends."""
        ...

    def event(self, data: dict[str, Any]) -> HookEvent:
        """The event read from what the agent sent, every field checked."""
        ...

    def gives_context(self, event: HookEvent) -> bool:
        """Whether the event is one the agent takes context from."""
        ...

    def session_start(self, event: HookEvent) -> str | None:
        """The trigger when the event starts a session (`session start`, `resume`,
        `compact`): it gets the project's standing context. None for a prompt."""
        ...

    def prompt_at_start(self, event: HookEvent, log: Log) -> str:
        """What to recall for at a session's start: the prompt a resumed or compacted
        conversation lost, or ""."""
        ...

    def kept_prompt(self, event: HookEvent) -> str | None:
        """The prompt to keep until its turn is captured (the agent's record of the turn
        may lag behind its end), or None."""
        ...

    def captures(self, event: HookEvent) -> bool:
        """Whether a post hook's event is a turn to capture (not a subagent's, say)."""
        ...

    def new_turns(self, event: HookEvent, home: Path, log: Log) -> NewTurns:
        """The conversation's turns this event brings that were not captured yet."""
        ...

    def render(self, event: HookEvent, context: str, text_format: bool) -> str:
        """The hook's stdout for a context block that is not empty, in the form the agent
        reads (`--format text`: the block as it is, where the agent allows it)."""
        ...

    def starts_session_raw(self, event: bytes) -> bool:
        """Whether the event as sent starts a session, read without parsing it (the hook
        process decides this on its failure path, without `json`)."""
        ...
