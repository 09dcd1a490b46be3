"""The frame every modal question shares: one bordered box centred over the app, the
question's title on its border and the keys that answer it beneath.

One frame, so every question the app asks looks and reads alike; a dialog only says how
wide its box is and what goes in it.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

R = TypeVar("R")


class Dialog(ModalScreen[R]):
    """Subclasses set `keys` (the box's subtitle) and compose the box's content in
    `compose_body`; `scrolls` for a body that may be taller than the screen. A `hint`
    given stands muted above that content."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog > .dialog-box {
        max-width: 95%; height: auto;
        border: round $accent; background: $surface; padding: 1 2;
    }
    Dialog .dialog-hint { height: auto; color: $text-muted; margin-bottom: 1; }
    """

    keys: ClassVar[str]
    scrolls: ClassVar[bool] = False

    def __init__(self, title: str, *, hint: str = "") -> None:
        super().__init__()
        self._title = title
        self._hint = hint

    def compose(self) -> ComposeResult:
        box = VerticalScroll if self.scrolls else Vertical
        with box(classes="dialog-box") as frame:
            frame.border_title = self._title
            frame.border_subtitle = self.keys
            if self._hint:
                yield Static(self._hint, classes="dialog-hint", markup=False)
            yield from self.compose_body()

    def compose_body(self) -> ComposeResult:
        """The widgets inside the box, under the hint."""
        raise NotImplementedError
