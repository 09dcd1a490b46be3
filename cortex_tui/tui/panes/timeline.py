"""The Days pane: a calendar heatmap of the store's days, and what happened on one of them.

A heatmap of the last 90 days (`t` cycles 30, 90, 365) of memories created, versions
superseded or turns captured (`m` cycles); the day under the cursor lists its memories
below, each with what happened to it that day. Enter on a listed memory opens its
version history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.theme import Theme
from textual.widgets import DataTable, Static

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Memory
from cortex_tui.overview.models import DayCounts, DayMemories, Timeline
from cortex_tui.tui.colours import ramp
from cortex_tui.tui.formatting import one_line
from cortex_tui.tui.panes.base import Answered, OpenHistory, Pane, titled
from cortex_tui.tui.widgets.day_heatmap import CELL, LEVELS, DayHeatmap

SPANS: tuple[int, ...] = (90, 365, 30)
METRICS: tuple[str, ...] = ("created", "superseded", "captured")
_CONTENT = 70


def shades(variables: dict[str, str]) -> list[str]:
    """Level 0 (a quiet day) faint, then four steps towards the accent."""
    return [
        *ramp(variables, "background", "foreground", (0.25,)),
        *ramp(variables, "background", "accent", (0.35, 0.55, 0.8, 1.0)),
    ]


def totals_content(timeline: Timeline, metric: str, span: int) -> Content:
    total = {name: sum(getattr(day, name) for day in timeline.days) for name in METRICS}
    return Content.assemble(
        (f"Last {span} days", "bold"),
        f": {total['created']:,} created · {total['superseded']:,} superseded · "
        f"{total['captured']:,} captured",
        (f" · shading {metric} (m) · span (t)", "$text-muted"),
    )


def day_content(day: DayCounts) -> Content:
    when = date.fromisoformat(day.day)
    return Content.assemble(
        (f"{when:%a %Y-%m-%d}", "bold"),
        f": {day.created} created · {day.superseded} superseded · {day.captured} captured",
    )


def legend_content(colours: list[str]) -> Content:
    cells = [(CELL, colour) for colour in colours]
    return Content.assemble(("less ", "$text-muted"), *cells, ("more", "$text-muted"))


@dataclass(frozen=True)
class Listed:
    memory: Memory
    what: str


def listed(day: DayMemories) -> list[Listed]:
    rows = [Listed(m, "created") for m in day.created]
    rows += [Listed(m, "superseded") for m in day.superseded]
    return sorted(rows, key=lambda row: (_when(row), row.memory.id))


def _when(row: Listed) -> datetime:
    memory = row.memory
    return (memory.valid_to or memory.created_at) if row.what == "superseded" else memory.created_at


class TimelineLoaded(Answered[Timeline]):
    """Memories created, superseded and captured per day."""


class DayLoaded(Answered[DayMemories]):
    """One day's memories, created and superseded."""


class TimelinePane(Pane):
    """When the store grew and changed, day by day."""

    pane_id = "timeline"
    title = "Days"
    """Short: ten tabs fit in 100 columns."""
    key = "9"
    purpose = "Days shows when memories were made, superseded and captured."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "cycle_span", "Span", id="timeline.span"),
        Binding("m", "cycle_metric", "Shading", id="timeline.metric"),
    ]

    DEFAULT_CSS = """
    TimelinePane #timeline-status, TimelinePane #timeline-day { height: auto; padding: 0 1; }
    TimelinePane #timeline-legend { height: 1; padding: 0 1; }
    TimelinePane DayHeatmap { border: round $panel-lighten-2; height: 10; }
    TimelinePane DayHeatmap:focus { border: round $accent; }
    TimelinePane DataTable { height: 1fr; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.span = SPANS[0]
        self.metric = METRICS[0]
        self._timeline: Timeline | None = None
        self._rows: list[Listed] = []

    def compose(self) -> ComposeResult:
        yield Static("Reading the store's days…", id="timeline-status")
        yield titled(DayHeatmap(id="timeline-heatmap"), "Per day")
        yield Static(id="timeline-legend")
        yield Static(id="timeline-day")
        yield DataTable(id="timeline-memories", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("time", key="time", width=5)
        table.add_column("what", key="what", width=10)
        table.add_column("type", key="type", width=10)
        table.add_column("project", key="project", width=10)
        table.add_column("memory", key="memory")
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def reload(self) -> None:
        engine, span = self.engine, self.span
        self.call_engine(lambda: engine.overview.timeline(span), TimelineLoaded, name="timeline")

    @on(TimelineLoaded)
    def _timeline_loaded(self, message: TimelineLoaded) -> None:
        self.show(message.result)

    def show(self, timeline: Timeline) -> None:
        self._timeline = timeline
        self._draw()

    def _draw(self) -> None:
        if self._timeline is None:
            return
        colours = shades(self.app.theme_variables)
        self.query_one(DayHeatmap).show(self._timeline.days, self.metric, colours)
        self.query_one(DayHeatmap).border_title = f"{self.metric.capitalize()} per day"
        status = totals_content(self._timeline, self.metric, self.span)
        self.query_one("#timeline-status", Static).update(status)
        self.query_one("#timeline-legend", Static).update(legend_content(colours[: LEVELS + 1]))

    def _theme_changed(self, theme: Theme) -> None:
        self._draw()

    @on(DayHeatmap.Chosen)
    def _day_chosen(self, event: DayHeatmap.Chosen) -> None:
        self.query_one("#timeline-day", Static).update(day_content(event.day))
        engine, day = self.engine, date.fromisoformat(event.day.day)
        self.call_engine(lambda: engine.overview.day(day), DayLoaded, name="timeline-day")

    @on(DayLoaded)
    def _show_day(self, message: DayLoaded) -> None:
        day = message.result
        self._rows = listed(day)
        table = self.query_one(DataTable)
        table.clear()
        for row in self._rows:
            memory = row.memory
            table.add_row(
                f"{_when(row):%H:%M}",
                Content.styled(row.what, "$superseded" if row.what == "superseded" else ""),
                memory.type.value,
                memory.project or "global",
                one_line(memory.content, _CONTENT),
            )
        more = " (more that day: the first 200 are listed)" if day.more else ""
        table.border_title = f"{len(self._rows)} on {day.day}{more}"

    @on(DataTable.RowSelected, "#timeline-memories")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self._rows):
            self.post_message(OpenHistory(self._rows[event.cursor_row].memory.id))

    def focus_first(self) -> None:
        self.query_one(DayHeatmap).focus()

    def action_cycle_span(self) -> None:
        """90 → 365 → 30 → 90 days."""
        self.span = SPANS[(SPANS.index(self.span) + 1) % len(SPANS)]
        self.reload()

    def action_cycle_metric(self) -> None:
        """created → superseded → captured → created."""
        self.metric = METRICS[(METRICS.index(self.metric) + 1) % len(METRICS)]
        self._draw()
