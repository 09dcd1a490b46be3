"""A one-line question: an alias, a new name, a list of tags, an entity to merge into."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from cortex_tui.tui.widgets.dialog import Dialog


class PromptModal(Dialog[str | None]):
    """Dismisses with the stripped answer on enter, or None on escape.

    `allow_empty` lets an empty answer through (clearing all tags is a real answer).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
    ]

    DEFAULT_CSS = """
    PromptModal > .dialog-box { width: 70; }
    """

    keys = "enter ok · esc cancel"

    def __init__(
        self, title: str, *, value: str = "", hint: str = "", allow_empty: bool = False
    ) -> None:
        super().__init__(title, hint=hint)
        self._value = value
        self._allow_empty = allow_empty

    def compose_body(self) -> ComposeResult:
        yield Input(self._value, id="prompt-input")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        answer = event.value.strip()
        if answer or self._allow_empty:
            self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
