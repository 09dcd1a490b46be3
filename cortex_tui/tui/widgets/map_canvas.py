"""`MapCanvas`: the memory map drawn in terminal cells, with a cursor that picks a point.

A small canvas of our own rather than `textual-plotext`: a plotext scatter colours each
point by series, but cannot say which point is under a cursor, nor draw cluster labels
and a query's ranks in the same cells, and its braille dots would hide the colour of
every point but one in each cell. Here a cell is one glyph: its density (`·`, `•`,
`●`, `◉`) relative to the busiest cell, coloured by the most frequent category among
its points. Labels of clusters, a query (`◆`) and its results (their ranks) are drawn
over the points; the cursor cell is shown in reverse.

The widget only draws and reports: `Moved` says which memory is nearest the cursor;
the pane fetches and shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from cortex_tui.overview.models import MemoryMap

GLYPHS = ("·", "•", "●", "◉")
QUERY_GLYPH = "◆"
LABEL_WIDTH = 22
PAD = 0.03
ROW_WEIGHT = 2.0
"""A terminal cell is about twice as tall as it is wide: distances count rows double."""

Floats = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class Frame:
    """Where the map's points fall in a `width` × `height` grid of cells."""

    width: int
    height: int
    cols: Floats
    rows: Floats
    """Each point's position in cells (fractional: the nearest point is found on these)."""
    x_range: tuple[float, float]
    y_range: tuple[float, float]

    def cell(self, x: float, y: float) -> tuple[int, int]:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        col = (x - x0) / (x1 - x0) * (self.width - 1)
        row = (y1 - y) / (y1 - y0) * (self.height - 1)
        return (
            int(np.clip(round(col), 0, self.width - 1)),
            int(np.clip(round(row), 0, self.height - 1)),
        )

    def nearest(self, col: int, row: int) -> int | None:
        """The index of the point nearest the cell (None for an empty map)."""
        if not len(self.cols):
            return None
        distance = (self.cols - col) ** 2 + ((self.rows - row) * ROW_WEIGHT) ** 2
        return int(np.argmin(distance))


def frame(memory_map: MemoryMap, width: int, height: int) -> Frame:
    """Fit every point, the query and its results into the grid, with a small margin."""
    xs = [*memory_map.x, *(hit.x for hit in memory_map.hits)]
    ys = [*memory_map.y, *(hit.y for hit in memory_map.hits)]
    if memory_map.query_x is not None and memory_map.query_y is not None:
        xs.append(memory_map.query_x)
        ys.append(memory_map.query_y)
    x_range, y_range = _span(xs), _span(ys)
    x = np.asarray(memory_map.x, np.float64)
    y = np.asarray(memory_map.y, np.float64)
    cols = (x - x_range[0]) / (x_range[1] - x_range[0]) * (width - 1)
    rows = (y_range[1] - y) / (y_range[1] - y_range[0]) * (height - 1)
    return Frame(width, height, cols, rows, x_range, y_range)


def _span(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return (-1.0, 1.0)
    low, high = float(min(values)), float(max(values))
    if high - low < 1e-9:
        return (low - 1.0, high + 1.0)
    margin = (high - low) * PAD
    return (low - margin, high + margin)


def draw(
    memory_map: MemoryMap,
    categories: Sequence[int],
    styles: Sequence[str],
    grid: Frame,
    cursor: tuple[int, int] | None,
) -> Content:
    """The map as `grid.height` lines of `grid.width` cells.

    `categories[i]` is point i's category, `styles[c]` the style of category c.
    """
    width, height = grid.width, grid.height
    glyphs: list[list[tuple[str, str]]] = [[(" ", "")] * width for _ in range(height)]
    if len(grid.cols):
        cells = np.rint(grid.rows).astype(int) * width + np.rint(grid.cols).astype(int)
        kinds = np.asarray(categories, np.int64)
        counts = np.bincount(cells, minlength=width * height)
        by_kind = np.zeros((width * height, max(len(styles), 1)), np.int64)
        np.add.at(by_kind, (cells, kinds), 1)
        dominant = by_kind.argmax(axis=1)
        busiest = int(counts.max())
        for cell in np.flatnonzero(counts):
            level = min(len(GLYPHS) - 1, int(len(GLYPHS) * (counts[cell] - 1) / busiest))
            glyphs[cell // width][cell % width] = (GLYPHS[level], styles[int(dominant[cell])])
    marked = {grid.cell(hit.x, hit.y)[::-1] for hit in memory_map.hits}
    if memory_map.query_x is not None and memory_map.query_y is not None:
        marked.add(grid.cell(memory_map.query_x, memory_map.query_y)[::-1])
    _labels(glyphs, memory_map, grid, marked)
    for hit in reversed(memory_map.hits):
        col, row = grid.cell(hit.x, hit.y)
        glyphs[row][col] = (str(hit.rank) if hit.rank < 10 else "+", "bold reverse $warning")
    if memory_map.query_x is not None and memory_map.query_y is not None:
        col, row = grid.cell(memory_map.query_x, memory_map.query_y)
        glyphs[row][col] = (QUERY_GLYPH, "bold $accent")
    if cursor is not None:
        col, row = cursor
        glyph, style = glyphs[row][col]
        glyphs[row][col] = (glyph if glyph != " " else "+", f"{style} reverse".strip())
    return Content("\n").join(Content.assemble(*line) for line in glyphs)


def label_text(terms: Sequence[str], width: int = LABEL_WIDTH) -> str:
    """As many whole terms as fit in `width`, joined by dots."""
    text = ""
    for term in terms:
        joined = f"{text} · {term}" if text else term
        if len(joined) > width:
            break
        text = joined
    return text or (terms[0][: width - 1] + "…" if terms else "")


def _labels(
    glyphs: list[list[tuple[str, str]]],
    memory_map: MemoryMap,
    grid: Frame,
    taken: set[tuple[int, int]],
) -> None:
    """Each cluster's terms at its centre, moved a row down or up if another label, the
    query or a result (the `taken` cells, as row and column) is there."""
    for cluster in sorted(memory_map.clusters, key=lambda c: -c.size):
        text = label_text(cluster.terms)
        if not text:
            continue
        col, row = grid.cell(cluster.x, cluster.y)
        start = max(0, min(grid.width - len(text), col - len(text) // 2))
        for candidate in (row, row + 1, row - 1, row + 2, row - 2):
            span = {(candidate, c) for c in range(start - 1, start + len(text) + 1)}
            if 0 <= candidate < grid.height and not span & taken:
                for offset, char in enumerate(text):
                    glyphs[candidate][start + offset] = (char, "bold $text")
                taken |= span
                break


class MapCanvas(Widget, can_focus=True):
    """The map, a cursor over it, and the memory nearest the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(0, -1)", "Up", show=False),
        Binding("down", "move(0, 1)", "Down", show=False),
        Binding("left", "move(-1, 0)", "Left", show=False),
        Binding("right", "move(1, 0)", "Right", show=False),
        Binding("shift+up", "move(0, -4)", show=False),
        Binding("shift+down", "move(0, 4)", show=False),
        Binding("shift+left", "move(-8, 0)", show=False),
        Binding("shift+right", "move(8, 0)", show=False),
    ]

    DEFAULT_CSS = """
    MapCanvas { width: 1fr; height: 1fr; }
    """

    cursor: reactive[tuple[int, int] | None] = reactive(None)

    @dataclass
    class Moved(Message):
        """The cursor is nearest another memory (None: the map is empty)."""

        memory_id: str | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._map: MemoryMap | None = None
        self._categories: list[int] = []
        self._styles: list[str] = []
        self._frame: Frame | None = None
        self._nearest: str | None = None

    def show(self, memory_map: MemoryMap, categories: list[int], styles: list[str]) -> None:
        """Draw `memory_map`, point i in `styles[categories[i]]`; the cursor stays where
        it was, or starts on the first result of a query, else the middle."""
        self._map, self._categories, self._styles = memory_map, categories, styles
        self._frame = None
        grid = self._grid()
        if grid is not None and memory_map.hits:
            self.cursor = grid.cell(memory_map.hits[0].x, memory_map.hits[0].y)
        elif grid is not None and self.cursor is None:
            self.cursor = (grid.width // 2, grid.height // 2)
        self._report()
        self.refresh()

    @property
    def selected(self) -> str | None:
        return self._nearest

    def render(self) -> Content:
        grid = self._grid()
        if self._map is None or grid is None:
            return Content("")
        return draw(self._map, self._categories, self._styles, grid, self.cursor)

    def _grid(self) -> Frame | None:
        width, height = self.content_size.width, self.content_size.height
        if self._map is None or width < 2 or height < 2:
            return None
        if self._frame is None or (self._frame.width, self._frame.height) != (width, height):
            self._frame = frame(self._map, width, height)
            if self.cursor is not None:  # the terminal shrank: keep the cursor inside
                col, row = self.cursor
                self.set_reactive(MapCanvas.cursor, (min(col, width - 1), min(row, height - 1)))
        return self._frame

    def on_resize(self) -> None:
        self._frame = None
        self._report()

    def watch_cursor(self) -> None:
        self._report()

    def action_move(self, dx: int, dy: int) -> None:
        grid = self._grid()
        if grid is None:
            return
        col, row = self.cursor or (grid.width // 2, grid.height // 2)
        self.cursor = (
            int(np.clip(col + dx, 0, grid.width - 1)),
            int(np.clip(row + dy, 0, grid.height - 1)),
        )

    def on_click(self, event: events.Click) -> None:
        grid = self._grid()
        if grid is not None:
            offset = event.get_content_offset(self)
            if offset is not None:
                self.cursor = (offset.x, offset.y)

    def _report(self) -> None:
        grid = self._grid()
        nearest = None
        if grid is not None and self._map is not None and self.cursor is not None:
            index = grid.nearest(*self.cursor)
            nearest = self._map.ids[index] if index is not None else None
        if nearest != self._nearest:
            self._nearest = nearest
            self.post_message(self.Moved(nearest))
