"""What an adapter answers when its agent has nothing of its own to say: no event that
starts a session, no prompt to keep for its turn, every event a turn to capture.

Standard library only, and no `typing`: the hook process runs the adapters.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_tui.agent_turn.events import HookEvent
    from cortex_tui.log_protocol import Log


class PromptEvents:
    """An agent whose events are prompts and turn ends, and nothing else the flow reads."""

    def gives_context(self, event: HookEvent) -> bool:
        return True

    def session_start(self, event: HookEvent) -> str | None:
        return None

    def prompt_at_start(self, event: HookEvent, log: Log) -> str:
        return ""

    def kept_prompt(self, event: HookEvent) -> str | None:
        return None

    def captures(self, event: HookEvent) -> bool:
        return True

    def starts_session_raw(self, event: bytes) -> bool:
        return False
