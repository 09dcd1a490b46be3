"""`DayHeatmap`: a calendar of days, one cell per day, its colour the day's count.

Weeks are columns and weekdays rows (Monday on top), as in a contribution calendar;
the months are named over the week they start in. Five shades: none, then four steps
of the busiest day in the span. The cursor is a day: left and right move a week,
up and down a day; a click picks the day under it. `Chosen` reports the day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from cortex_tui.overview.models import DayCounts
from cortex_tui.tui.widgets.item_cursor import ItemCursor

CELL = "■ "
LABEL = 4
WIDEST = 3
"""Cells per day at most (`██ `, about square); two (`■ `) when the span is long, one
(`■`, no gap) when a year must fit in under 110 columns."""
WEEKDAYS = ("Mon", "", "Wed", "", "Fri", "", "Sun")
LEVELS = 4


def level(count: int, busiest: int) -> int:
    """0 for a quiet day, else 1..LEVELS by its share of the busiest day."""
    if count <= 0 or busiest <= 0:
        return 0
    return max(1, min(LEVELS, -(-count * LEVELS // busiest)))


class DayHeatmap(ItemCursor[DayCounts]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-7)", "Week before", show=False),
        Binding("right", "move(7)", "Week after", show=False),
        Binding("up", "move(-1)", "Day before", show=False),
        Binding("down", "move(1)", "Day after", show=False),
    ]

    DEFAULT_CSS = """
    DayHeatmap { height: 10; padding: 0 1; }
    """

    @dataclass
    class Chosen(Message):
        """A day picked, to list its memories."""

        day: DayCounts

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._metric = "created"
        self._shades: list[str] = [""] * (LEVELS + 1)

    def show(self, days: list[DayCounts], metric: str, shades: list[str]) -> None:
        """`shades[level]` colours a day of that level (0: none that day). The cursor
        stays on its day, else goes to the latest day with something to show."""
        chosen = self.selected.day if self.selected else None
        self._items, self._metric, self._shades = days, metric, shades
        active = [i for i, day in enumerate(days) if getattr(day, metric)]
        latest = active[-1] if active else len(days) - 1
        index = next((i for i, d in enumerate(days) if d.day == chosen), latest)
        self.set_reactive(DayHeatmap.cursor, max(index, 0))
        if self.selected is not None:
            self.post_message(self.Chosen(self.selected))
        self.refresh()

    def _offset(self) -> int:
        return date.fromisoformat(self._items[0].day).weekday() if self._items else 0

    def _weeks(self) -> int:
        return (self._offset() + len(self._items) + 6) // 7

    def _cell_width(self) -> int:
        room = (self.content_size.width - LABEL) // max(self._weeks(), 1)
        return max(1, min(WIDEST, room))

    def render(self) -> Content:
        if not self._items:
            return Content("")
        offset, weeks, width = self._offset(), self._weeks(), self._cell_width()
        cell = {1: "■", 2: CELL}.get(width, "█" * (width - 1) + " ")
        busiest = max(getattr(day, self._metric) for day in self._items)
        grid: list[list[tuple[str, str]]] = [[(" " * width, "")] * weeks for _ in range(7)]
        months = [" "] * (weeks * width + 3)
        for index, day in enumerate(self._items):
            week, weekday = divmod(offset + index, 7)
            style = self._shades[level(getattr(day, self._metric), busiest)]
            if index == self.cursor:
                style += " reverse" if self.has_focus else " underline"
            grid[weekday][week] = (cell, style)
            when = date.fromisoformat(day.day)
            if when.day == 1 or index == 0:
                name = when.strftime("%b")
                start = week * width
                if all(c == " " for c in months[max(0, start - 1) : start + len(name)]):
                    months[start : start + len(name)] = name
        lines = [Content.styled(" " * LABEL + "".join(months).rstrip(), "$text-muted")]
        for weekday, cells in enumerate(grid):
            label = Content.styled(WEEKDAYS[weekday].ljust(LABEL), "$text-muted")
            lines.append(Content.assemble(label, *cells))
        return Content("\n").join(lines)

    def watch_cursor(self) -> None:
        if self.selected is not None:
            self.post_message(self.Chosen(self.selected))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1 or offset.x < LABEL:
            return
        index = (offset.x - LABEL) // self._cell_width() * 7 + (offset.y - 1) - self._offset()
        if 0 <= index < len(self._items):
            self.cursor = index
