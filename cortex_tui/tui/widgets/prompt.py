"""A one-line question: an alias, a new name, a list of tags, an entity to merge into."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class PromptModal(ModalScreen[str | None]):
    """Dismisses with the stripped answer on enter, or None on escape.

    `allow_empty` lets an empty answer through (clearing all tags is a real answer).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
    ]

    DEFAULT_CSS = """
    PromptModal { align: center middle; }
    PromptModal > Vertical {
        width: 70; max-width: 95%; height: auto;
        border: round $accent; background: $surface; padding: 1 2;
    }
    PromptModal #prompt-hint { height: auto; color: $text-muted; margin-bottom: 1; }
    """

    def __init__(
        self, title: str, *, value: str = "", hint: str = "", allow_empty: bool = False
    ) -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._hint = hint
        self._allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self._title
            box.border_subtitle = "enter ok · esc cancel"
            if self._hint:
                yield Static(self._hint, id="prompt-hint", markup=False)
            yield Input(self._value, id="prompt-input")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        answer = event.value.strip()
        if answer or self._allow_empty:
            self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
