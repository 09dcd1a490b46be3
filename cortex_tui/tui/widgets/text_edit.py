"""A modal to write or rewrite memory text (an edit, or the merged text of a conflict).

Memory text is prose that may span lines, so it is edited in a `TextArea`, started from
the text being replaced. An empty text (or, when `require_change`, an unchanged one) is
refused in the modal, with the reason, before any engine call.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea


class EditTextModal(ModalScreen[str | None]):
    """Dismisses with the new text on ctrl+s, or None on escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    DEFAULT_CSS = """
    EditTextModal { align: center middle; }
    EditTextModal > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 1 2;
    }
    EditTextModal #edit-hint { height: auto; color: $text-muted; margin-bottom: 1; }
    EditTextModal TextArea { height: 10; }
    EditTextModal #edit-error { height: auto; color: $error; }
    """

    def __init__(
        self, title: str, text: str, *, hint: str = "", require_change: bool = True
    ) -> None:
        super().__init__()
        self._title = title
        self._text = text
        self._hint = hint
        self._require_change = require_change

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self._title
            box.border_subtitle = "ctrl+s save · esc cancel"
            if self._hint:
                yield Static(self._hint, id="edit-hint", markup=False)
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
