"""The reference pages inside the app (`f1`, or "Docs: …" in the palette).

The same Markdown files `cortex-tui docs` prints, in Textual's Markdown viewer: a
table of contents beside the page, links between pages followed in place (`b` goes
back), a link to the web handed to the system's browser.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Markdown, MarkdownViewer

from cortex_tui.docs.pages import INDEX, Page


class DocsViewer(MarkdownViewer):
    """Textual's viewer reads every link as a file: a web address goes to the browser,
    and a file the package does not ship (the repository's README, a screenshot) is
    said to be missing instead of breaking the app."""

    async def _on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        message.prevent_default()
        message.stop()
        href = message.href
        if href.startswith(("http://", "https://")):
            self.app.open_url(href)
            return
        target = href.split("#", 1)[0]
        if target and not (self.navigator.location.parent / target).is_file():
            self.notify(f"{target} is in the project's repository, not in the package")
            return
        await self.go(href)


class DocsScreen(Screen[None]):
    """One page, opened at `anchor` (a heading's GitHub-style slug) when given."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="docs.close"),
        Binding("b,backspace", "back", "Back", id="docs.back"),
        Binding("f", "forward", "Forward", id="docs.forward"),
        Binding("i", "index", "All pages", id="docs.index"),
        Binding("t", "contents", "Contents", id="docs.contents"),
    ]

    def __init__(self, page: Page, anchor: str = "") -> None:
        super().__init__()
        self.page = page
        self.heading = anchor

    def compose(self) -> ComposeResult:
        # open_links=False: the document leaves every link to the viewer's handler
        yield DocsViewer(show_table_of_contents=True, open_links=False, id="docs-viewer")
        yield Footer()

    @property
    def viewer(self) -> DocsViewer:
        return self.query_one(DocsViewer)

    async def on_mount(self) -> None:
        await self.viewer.go(self._location())
        self.viewer.document.focus()

    def turn_to(self, page: Page, anchor: str = "") -> None:
        """Show another page here (back returns to this one)."""
        self.page, self.heading = page, anchor
        self.call_later(self.viewer.go, self._location())

    def _location(self) -> str:
        return f"{self.page.path}#{self.heading}" if self.heading else str(self.page.path)

    def action_close(self) -> None:
        self.dismiss()

    async def action_back(self) -> None:
        await self.viewer.back()

    async def action_forward(self) -> None:
        await self.viewer.forward()

    async def action_index(self) -> None:
        await self.viewer.go(self.page.path.parent / INDEX)

    def action_contents(self) -> None:
        self.viewer.show_table_of_contents = not self.viewer.show_table_of_contents
