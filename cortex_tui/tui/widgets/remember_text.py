"""A modal to make a memory of something said: the text to keep, started from what was
said, trimmed to the sentence worth keeping.

A write that failed opens it again with the text as it was typed and the reason under
it, so nothing typed is lost to an error.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static, TextArea

from cortex_tui.tui.widgets.text_edit import EditTextModal


class RememberTextModal(EditTextModal):
    """Dismisses with the text to remember on ctrl+s (unchanged is fine), or None on
    escape; `problem` is why the last try with this text failed."""

    def __init__(self, title: str, text: str, *, hint: str = "", problem: str = "") -> None:
        super().__init__(title, text, hint=hint, require_change=False)
        self._problem = problem

    def compose_body(self) -> ComposeResult:
        yield TextArea(self._text, soft_wrap=True, id="edit-text")
        yield Static(Content(self._problem), id="edit-error")
