"""Plain text: what no agent's adapter recognises. The prompt is the text itself (or, for
a JSON object, its `prompt`), the context is printed as it is, and a post hook's text is
captured as one turn. No session is followed.

Standard library only, and no `typing`: the hook process runs it.
"""

from __future__ import annotations

from cortex_tui.agent_turn.agents.defaults import PromptEvents
from cortex_tui.agent_turn.events import HookEvent, string_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cortex_tui.log_protocol import Log


class Plain(PromptEvents):
    name = "plain"
    pre_fields: tuple[str, ...] = ("prompt", "cwd", "session_id")
    keeps_sessions = False

    def recognises(self, data: dict[str, Any]) -> bool:
        """Everything: the registry asks it last."""
        return True

    def event(self, data: dict[str, Any]) -> HookEvent:
        """A JSON object no agent sent: its `prompt`, `cwd` and `session_id`, if any."""
        return HookEvent(
            self,
            prompt=string_field(data.get("prompt")),
            cwd=string_field(data.get("cwd")) or None,
            session_id=string_field(data.get("session_id")) or None,
        )

    def text_event(self, text: str) -> HookEvent:
        """Text that is not a JSON object: the prompt itself."""
        return HookEvent(self, prompt=text)

    def new_turns(self, event: HookEvent, home: Path, log: Log) -> TextTurn:
        return TextTurn(event.prompt)

    def render(self, event: HookEvent, context: str, text_format: bool) -> str:
        return context


class TextTurn:
    """The text sent, as one turn; nothing to settle."""

    __slots__ = ("texts",)

    def __init__(self, text: str) -> None:
        self.texts = [text]

    def settle(self) -> None:
        return None


PLAIN = Plain()
