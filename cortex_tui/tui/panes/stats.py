"""The Stats pane: what the store holds, how it grew, and what it talks about most.

A small read-only overview: counts by type, scope and project, active conflicts, a
sparkline of memories created per day (from `engine.activity`, measured on the engine's
clock) and the most mentioned entities. Everything is fetched in one worker call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Sparkline, Static

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Stats
from cortex_tui.tui.bars import bar
from cortex_tui.tui.panes.base import Answered, Pane, titled

TIMELINES: tuple[int, ...] = (30, 90, 365)
_MAX_BAR = 24
BOXES = (
    ("type", "By type"),
    ("scope", "By scope"),
    ("project", "By project"),
    ("entities", "Top entities"),
)


@dataclass(frozen=True)
class StatsView:
    """One snapshot of the store for the pane: counts plus the created-per-day series."""

    stats: Stats
    activity: dict[str, int]


def counts_content(counts: dict[str, int], width: int, *, colour: str = "$accent") -> Content:
    """Rows of `name  count  bar`, largest first, each fitting in `width` cells (a row that
    wrapped would split a name from its bar); names are data, so they are escaped."""
    if not counts:
        return Content.styled("none", "$text-muted")
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    name_width = max(len(name) for name, _ in ordered)
    bar_width = min(_MAX_BAR, width - name_width - 7)
    if bar_width < 3:  # too narrow for bars: names (cut) and counts only
        name_width, bar_width = max(1, width - 7), 0
    top = ordered[0][1]
    lines = [
        Content.assemble(
            name[:name_width].ljust(name_width),
            f" {count:>5} ",
            (bar(count, top, bar_width), colour),
        )
        for name, count in ordered
    ]
    return Content("\n").join(lines)


def summary_content(stats: Stats, *, show_store: bool = True) -> Content:
    conflicts_style = "bold $conflict" if stats.active_conflicts else "$text-muted"
    return Content.assemble(
        (f"{stats.total}", "bold"),
        " memories · ",
        (f"{stats.current}", "bold"),
        " current · ",
        (f"{stats.superseded}", "bold $superseded"),
        " superseded · ",
        (f"{stats.deleted}", "bold"),
        " deleted · ",
        (f"{stats.entities}", "bold"),
        " entities · ",
        (f"{stats.relations}", "bold"),
        " relations · ",
        (f"{stats.active_conflicts} memories in conflict", conflicts_style),
        "\n",
        (f"embedder {stats.embedder} ({stats.dimension}-d)", "$text-muted"),
        (f" · store {stats.store}" if show_store else "", "$text-muted"),
    )


def timeline_caption(activity: dict[str, int]) -> Content:
    days = sorted(activity)
    if not days:
        return Content("")
    total = sum(activity.values())
    busiest = max(activity.values())
    return Content.assemble(
        (days[0], "$text-muted"),
        f"  →  {days[-1]}   ",
        (f"{total}", "bold"),
        f" created, busiest day {busiest}",
    )


class StatsLoaded(Answered[StatsView]):
    """The counts and the activity of the last days."""


class StatsPane(Pane):
    """Counts, conflicts, growth over time and top entities, at a glance."""

    pane_id = "stats"
    title = "Stats"
    key = "6"
    purpose = "Stats counts memories by type, scope and project, and per day."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "cycle_timeline", "Timeline span", id="stats.timeline"),
        Binding("r", "reload", "Refresh", id="stats.reload"),
    ]

    DEFAULT_CSS = """
    StatsPane #stats-body { padding: 0 1; }
    StatsPane #stats-summary { height: auto; margin-bottom: 1; }
    StatsPane #stats-counts { height: auto; }
    StatsPane .stats-box {
        width: 1fr; height: auto; border: round $panel-lighten-2; padding: 0 1;
    }
    StatsPane #stats-timeline-box { height: auto; border: round $panel-lighten-2; padding: 0 1; }
    StatsPane Sparkline { height: 3; }
    StatsPane Sparkline > .sparkline--max-color { color: $accent; }
    StatsPane Sparkline > .sparkline--min-color { color: $accent 30%; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.days = TIMELINES[0]
        self._view: StatsView | None = None

    def compose(self) -> ComposeResult:
        # One focusable scroll area: the pane's keys need focus inside the pane.
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-summary")
            with Horizontal(id="stats-counts"):
                for box, title in BOXES:
                    yield titled(Static(id=f"stats-{box}", classes="stats-box"), title)
            with titled(Vertical(id="stats-timeline-box"), self._timeline_title()):
                yield Sparkline([], id="stats-sparkline")
                yield Static(id="stats-timeline-caption")

    def reload(self) -> None:
        days = self.days
        engine = self.engine
        self.call_engine(
            lambda: StatsView(engine.overview.stats(), engine.overview.activity(days)),
            StatsLoaded,
            name="stats",
        )

    @on(StatsLoaded)
    def _stats_loaded(self, message: StatsLoaded) -> None:
        self.show(message.result)

    def show(self, view: StatsView) -> None:
        """Render a fetched snapshot (UI thread)."""
        self._view = view
        stats = view.stats
        summary = summary_content(stats, show_store=not self.stable)
        self.query_one("#stats-summary", Static).update(summary)
        boxes = {
            "type": (stats.by_type, "$accent"),
            "scope": (stats.by_scope, "$accent"),
            "project": (stats.by_project, "$accent"),
            "entities": (stats.top_entities, "$graph-edge"),
        }
        for box, (counts, colour) in boxes.items():
            widget = self.query_one(f"#stats-{box}", Static)
            width = widget.content_size.width or widget.size.width or 24
            widget.update(counts_content(counts, width, colour=colour))
        series = [float(view.activity[day]) for day in sorted(view.activity)]
        self.query_one("#stats-sparkline", Sparkline).data = series
        self.query_one("#stats-timeline-caption", Static).update(timeline_caption(view.activity))

    def on_resize(self) -> None:
        if self._view is not None:
            self.call_after_refresh(self.show, self._view)  # bars fit the new box widths

    def action_cycle_timeline(self) -> None:
        """Widen the timeline: 30 → 90 → 365 days → 30."""
        self.days = TIMELINES[(TIMELINES.index(self.days) + 1) % len(TIMELINES)]
        self._title_timeline()
        self.reload()

    def action_reload(self) -> None:
        self.reload()

    def _title_timeline(self) -> None:
        self.query_one("#stats-timeline-box").border_title = self._timeline_title()

    def _timeline_title(self) -> str:
        return f"Created per day, last {self.days} days"
