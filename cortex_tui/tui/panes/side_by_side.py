"""The layout of the panes that pick on the left and show on the right.

Conflicts (a group, then its members) and History (a changed fact, then its versions)
both read as a summary line over two lists side by side; one layout keeps the two alike.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList, Static

from cortex_tui.tui.panes.base import Pane, titled


class SideBySidePane(Pane):
    """Subclasses name their two lists, left then right, in `lists` as (id, title) and
    give the left one its width; the summary line is `#<pane_id>-summary`."""

    DEFAULT_CSS = """
    SideBySidePane { padding: 0 1; }
    SideBySidePane > .summary { height: 1; color: $text-muted; }
    SideBySidePane > .lists { height: 1fr; }
    SideBySidePane OptionList { height: 1fr; border: round $panel-lighten-2; }
    SideBySidePane OptionList:focus { border: round $accent; }
    SideBySidePane .lists > OptionList { width: 1fr; }
    """

    lists: ClassVar[tuple[tuple[str, str], tuple[str, str]]]

    def compose(self) -> ComposeResult:
        yield Static(id=f"{self.pane_id}-summary", classes="summary")
        with Horizontal(id=f"{self.pane_id}-body", classes="lists"):
            for list_id, title in self.lists:
                yield titled(OptionList(id=list_id), title)
