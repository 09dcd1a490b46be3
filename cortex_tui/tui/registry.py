"""The app's panes, in the order of their number keys.

`PANES` names each pane's class by module rather than importing it: the pane modules
pull in the engine's models, pydantic and numpy, a third of a second the first frame
does not wait for. The app imports them (`PaneEntry.load`) once that frame is on screen.
A new pane is one line here; a test checks each line against its class.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cortex_tui.tui.panes.base import Pane


@dataclass(frozen=True)
class PaneEntry:
    """What the app binds and draws before the pane's module is imported."""

    pane_id: str
    key: str
    title: str
    module: str
    """The module under `cortex_tui.tui.panes`."""
    class_name: str

    def load(self) -> type[Pane]:
        module = importlib.import_module(f"cortex_tui.tui.panes.{self.module}")
        pane: type[Pane] = getattr(module, self.class_name)
        return pane


PANES: tuple[PaneEntry, ...] = (
    PaneEntry("recall", "1", "Recall", "recall", "RecallPane"),
    PaneEntry("conflicts", "2", "Conflicts", "conflicts", "ConflictsPane"),
    PaneEntry("history", "3", "History", "history", "HistoryPane"),
    PaneEntry("graph", "4", "Graph", "graph", "GraphPane"),
    PaneEntry("memories", "5", "Memories", "memories", "MemoriesPane"),
    PaneEntry("stats", "6", "Stats", "stats", "StatsPane"),
    PaneEntry("map", "7", "Map", "map", "MapPane"),
    PaneEntry("words", "8", "Words", "words", "WordsPane"),
    PaneEntry("timeline", "9", "Days", "timeline", "TimelinePane"),
    PaneEntry("health", "0", "Health", "health", "HealthPane"),
    PaneEntry("given", "G", "Given", "given", "GivenPane"),
    PaneEntry("sessions", "S", "Sessions", "sessions", "SessionsPane"),
)
