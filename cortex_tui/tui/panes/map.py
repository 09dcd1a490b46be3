"""The Map pane: the whole store as a picture of its embedding space.

Every memory is a point on the two principal axes of the store's vectors (computed by
the engine, kept between calls; above 20,000 memories a fixed sample, said on screen).
Colour shows type, project or conflict state (`c` cycles); clusters carry the terms
that set them apart. A query typed here is placed on the map with its top results
numbered by rank: the picture of why recall picked them. The cursor (arrows, or a
click) selects the nearest memory; enter opens its version history.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, Static

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Memory, MemoryType
from cortex_tui.overview.models import MemoryMap
from cortex_tui.tui.colours import CATEGORIES, category_variable
from cortex_tui.tui.formatting import one_line
from cortex_tui.tui.panes.base import Answered, OpenHistory, Pane, titled
from cortex_tui.tui.widgets.map_canvas import GLYPHS, QUERY_GLYPH, MapCanvas

COLOUR_MODES = ("type", "project", "conflict")
GLOBAL = "(global)"
OTHER = "other"
HIT_LINES = 10
_PREVIEW = 400


@dataclass(frozen=True)
class Colouring:
    """Each point's category, and each category's name and style, for one colour mode."""

    categories: list[int]
    names: list[str]
    styles: list[str]


def colouring(memory_map: MemoryMap, mode: str) -> Colouring:
    if mode == "conflict":
        names = ["current", "in conflict", "superseded"]
        styles = [f"${category_variable(0)}", "bold $conflict", "$superseded"]
        categories = [
            1 if conflicted else 2 if superseded else 0
            for conflicted, superseded in zip(
                memory_map.conflicted, memory_map.superseded, strict=True
            )
        ]
        return Colouring(categories, names, styles)
    values = memory_map.types if mode == "type" else [p or GLOBAL for p in memory_map.projects]
    if mode == "type":
        names = [kind.value for kind in MemoryType]
    else:
        ranked = [name for name, _ in Counter(values).most_common()]
        names = ranked if len(ranked) <= CATEGORIES else [*ranked[: CATEGORIES - 1], OTHER]
    index = {name: position for position, name in enumerate(names)}
    fallback = index.get(OTHER, len(names) - 1)
    categories = [index.get(value, fallback) for value in values]
    styles = [f"${category_variable(position)}" for position in range(len(names))]
    return Colouring(categories, names, styles)


def legend_content(colours: Colouring) -> Content:
    counts = Counter(colours.categories)
    lines = [
        Content.assemble((f"{GLYPHS[2]} ", style), f"{name} ", (f"{counts[i]}", "$text-muted"))
        for i, (name, style) in enumerate(zip(colours.names, colours.styles, strict=True))
        if counts[i]
    ]
    lines.append(
        Content.assemble((f"{QUERY_GLYPH} ", "bold $accent"), ("the query  ", "$text-muted"))
    )
    lines.append(Content.assemble(("1 ", "bold reverse $warning"), ("its results", "$text-muted")))
    return Content("\n").join(lines)


def map_title(memory_map: MemoryMap) -> str:
    drawn = len(memory_map.ids)
    if memory_map.sampled:
        return f"{drawn:,} of {memory_map.total:,} memories (a fixed sample)"
    return f"{drawn:,} memories"


def axes_caption(memory_map: MemoryMap) -> str:
    first, second = memory_map.explained
    return f"the axes carry {first:.0%} + {second:.0%} of the variance"


def status_content(mode: str, superseded: bool) -> Content:
    return Content.styled(
        f"colour: {mode} (c) · superseded: {'shown' if superseded else 'hidden'} (s)",
        "$text-muted",
    )


def memory_content(memory: Memory) -> Content:
    project = memory.project or "global"
    state = " · superseded" if not memory.is_current else ""
    conflict = " · in conflict" if memory.conflict_status.value == "active" else ""
    return Content.assemble(
        (f"{memory.type.value} · {project}{state}", "bold"),
        (conflict, "bold $conflict"),
        "\n",
        (f"{memory.created_at:%Y-%m-%d} · {memory.short_id}", "$text-muted"),
        "\n\n",
        one_line(memory.content, _PREVIEW),
        "\n\n",
        ("enter: its version history", "$text-muted"),
    )


def hits_content(memory_map: MemoryMap, contents: dict[str, str]) -> Content:
    if not memory_map.query:
        return Content.styled("type a query (/) to place it and its results", "$text-muted")
    if not memory_map.hits:
        return Content.styled("no results", "$text-muted")
    lines = [
        Content.assemble(
            (f"{hit.rank:>2}", "bold $warning"),
            f" {hit.score:.2f} ",
            one_line(contents.get(hit.id, hit.id[:8]), 30),
        )
        for hit in memory_map.hits[:HIT_LINES]
    ]
    return Content("\n").join(lines)


@dataclass(frozen=True)
class MapView:
    memory_map: MemoryMap
    contents: dict[str, str]
    """The text of the query's results, for the side list."""


class MapLoaded(Answered[MapView]):
    """The memory map and its colouring."""


class MemoryLoaded(Answered[Memory]):
    """The memory picked on the map, in full."""


class MapPane(Pane):
    """The store's embedding space, coloured, labelled, and explained for one query."""

    pane_id = "map"
    title = "Map"
    key = "7"
    purpose = "Map places every memory by meaning: near points say similar things."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_query", "Query", id="map.focus_query"),
        Binding("c", "cycle_colour", "Colour by", id="map.colour"),
        Binding("s", "toggle_superseded", "Superseded", id="map.superseded"),
        Binding("enter", "open_history", "History", id="map.history"),
        Binding("f", "refit", "Refit axes", id="map.refit"),
        Binding("escape", "clear_query", "Clear query", show=False, id="map.clear"),
    ]

    DEFAULT_CSS = """
    MapPane #map-main { width: 1fr; }
    MapPane #map-query { margin: 0 0 0 0; }
    MapPane MapCanvas { border: round $panel-lighten-2; }
    MapPane MapCanvas:focus { border: round $accent; }
    MapPane #map-status { height: auto; padding: 0 1; }
    MapPane #map-side { width: 42; }
    MapPane #map-side > Static { border: round $panel-lighten-2; padding: 0 1; height: auto; }
    MapPane #map-memory { height: 1fr; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.colour_mode = COLOUR_MODES[0]
        self.superseded = False
        self.asked = ""
        self._view: MapView | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(id="map-main"):
                yield Input(
                    placeholder="Place a query on the map: enter, and its top 10 are numbered",
                    id="map-query",
                )
                yield titled(MapCanvas(id="map-canvas"), "Memory map")
                yield Static("Projecting the store…", id="map-status")
            with Vertical(id="map-side"):
                yield titled(Static(id="map-legend"), "Colour by type")
                yield titled(Static(id="map-memory"), "Nearest the cursor")
                yield titled(Static(id="map-hits"), "Query results")

    def reload(self, *, refit: bool = False) -> None:
        engine = self.engine
        superseded, query = self.superseded, self.asked or None

        def call() -> MapView:
            memory_map = engine.overview.memory_map(superseded=superseded, query=query, refit=refit)
            hit_ids = [hit.id for hit in memory_map.hits[:HIT_LINES]]
            return MapView(memory_map, {i: engine.get(i).content for i in hit_ids})

        self.call_engine(call, MapLoaded, name="map")

    @on(MapLoaded)
    def _map_loaded(self, message: MapLoaded) -> None:
        self.show(message.result)

    def show(self, view: MapView) -> None:
        """Draw a fetched map (UI thread)."""
        self._view = view
        self._draw()

    def _draw(self) -> None:
        if self._view is None:
            return
        memory_map = self._view.memory_map
        colours = colouring(memory_map, self.colour_mode)
        canvas = self.query_one(MapCanvas)
        canvas.show(memory_map, colours.categories, colours.styles)
        canvas.border_title = map_title(memory_map)
        canvas.border_subtitle = axes_caption(memory_map)
        legend = self.query_one("#map-legend", Static)
        legend.border_title = f"Colour by {self.colour_mode}"
        legend.update(legend_content(colours))
        status = status_content(self.colour_mode, self.superseded)
        self.query_one("#map-status", Static).update(status)
        self.query_one("#map-hits", Static).update(hits_content(memory_map, self._view.contents))
        if not memory_map.ids:
            self.query_one("#map-memory", Static).update(
                Content.styled("the store is empty: nothing to draw yet", "$text-muted")
            )

    @on(MapCanvas.Moved)
    def _moved(self, event: MapCanvas.Moved) -> None:
        memory_id = event.memory_id
        if memory_id is None:
            return
        engine = self.engine
        self.call_engine(lambda: engine.get(memory_id), MemoryLoaded, name="map-memory")

    @on(MemoryLoaded)
    def _show_memory(self, message: MemoryLoaded) -> None:
        self.query_one("#map-memory", Static).update(memory_content(message.result))

    @on(Input.Submitted, "#map-query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.asked = event.value.strip()
        self.query_one(MapCanvas).focus()
        self.reload()

    def focus_first(self) -> None:
        self.query_one(MapCanvas).focus()

    def action_focus_query(self) -> None:
        self.query_one("#map-query", Input).focus()

    def action_clear_query(self) -> None:
        field = self.query_one("#map-query", Input)
        if field.has_focus and field.value:
            field.value = ""
            return
        self.query_one(MapCanvas).focus()
        if self.asked:
            self.asked = ""
            field.value = ""
            self.reload()

    def action_cycle_colour(self) -> None:
        """type → project → conflict state → type."""
        self.colour_mode = COLOUR_MODES[(COLOUR_MODES.index(self.colour_mode) + 1) % 3]
        self._draw()

    def action_toggle_superseded(self) -> None:
        self.superseded = not self.superseded
        self.reload()

    def action_refit(self) -> None:
        self.reload(refit=True)

    def action_open_history(self) -> None:
        memory_id = self.query_one(MapCanvas).selected
        if memory_id is None:
            self.notify("no memory under the cursor", severity="warning")
            return
        self.post_message(OpenHistory(memory_id))
