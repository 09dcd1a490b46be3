"""The confirmation step before a curation action: what will happen, then yes or no.

Curation is reversible (undo), but a resolve or a restore changes what every agent recalls
from the next turn on, so the person sees exactly what will change before it does.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Button, Static

from cortex_tui.tui.widgets.dialog import Dialog


class ConfirmModal(Dialog[bool]):
    """Dismisses with True on y / enter / the confirm button, False on n / escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    DEFAULT_CSS = """
    ConfirmModal > .dialog-box { width: 76; max-height: 90%; }
    ConfirmModal #confirm-body { height: auto; margin-bottom: 1; }
    ConfirmModal Horizontal { height: auto; align-horizontal: right; }
    ConfirmModal Button { margin-left: 2; }
    """

    keys = "y confirm · n / esc cancel"
    scrolls = True

    def __init__(self, title: str, body: Content, *, confirm: str = "Yes") -> None:
        super().__init__(title)
        self._body = body
        self._confirm = confirm

    def compose_body(self) -> ComposeResult:
        yield Static(self._body, id="confirm-body")
        with Horizontal():
            yield Button("Cancel", id="confirm-cancel")
            yield Button(self._confirm, variant="primary", id="confirm-ok")

    def on_mount(self) -> None:
        self.query_one("#confirm-ok", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-ok")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
