"""A modal to write or rewrite memory text (an edit, or the merged text of a conflict).

Memory text is prose that may span lines, so it is edited in a `TextArea`, started from
the text being replaced. An empty text (or, when `require_change`, an unchanged one) is
refused in the modal, with the reason, before any engine call.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static, TextArea

from cortex_tui.tui.widgets.dialog import Dialog


class EditTextModal(Dialog[str | None]):
    """Dismisses with the new text on ctrl+s, or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    DEFAULT_CSS = """
    EditTextModal > .dialog-box { width: 90; max-height: 90%; }
    EditTextModal TextArea { height: 10; }
    EditTextModal #edit-error { height: auto; color: $error; }
    """

    keys = "ctrl+s save · esc cancel"

    def __init__(
        self, title: str, text: str, *, hint: str = "", require_change: bool = True
    ) -> None:
        super().__init__(title, hint=hint)
        self._text = text
        self._require_change = require_change

    def compose_body(self) -> ComposeResult:
        yield TextArea(self._text, soft_wrap=True, id="edit-text")
        yield Static("", id="edit-error")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text.strip()
        if not text:
            self.query_one("#edit-error", Static).update("The text is empty.")
            return
        if self._require_change and text == self._text.strip():
            self.query_one("#edit-error", Static).update("Nothing changed.")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
