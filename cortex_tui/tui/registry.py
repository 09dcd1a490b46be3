"""The app's panes, in the order of their number keys.

`PANES` is a plain list of `Pane` classes: the app builds one mode per entry, binds its
`key` and offers it in the command palette. A new pane is one import and one line here.
"""

from __future__ import annotations

from cortex_tui.tui.panes.base import Pane
from cortex_tui.tui.panes.conflicts import ConflictsPane
from cortex_tui.tui.panes.graph import GraphPane
from cortex_tui.tui.panes.health import HealthPane
from cortex_tui.tui.panes.history import HistoryPane
from cortex_tui.tui.panes.map import MapPane
from cortex_tui.tui.panes.memories import MemoriesPane
from cortex_tui.tui.panes.recall import RecallPane
from cortex_tui.tui.panes.stats import StatsPane
from cortex_tui.tui.panes.timeline import TimelinePane
from cortex_tui.tui.panes.words import WordsPane

PANES: list[type[Pane]] = [
    RecallPane,
    ConflictsPane,
    HistoryPane,
    GraphPane,
    MemoriesPane,
    StatsPane,
    MapPane,
    WordsPane,
    TimelinePane,
    HealthPane,
]
