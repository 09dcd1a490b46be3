"""`WordCloudView`: terms laid out as a terminal word cloud, one of them selected.

A terminal has one type size, so frequency shows the terminal's way: order (the most
frequent first), weight (bold for the upper tiers) and a colour ramp from muted to the
accent. Tags are shown as `#tag`; entities in italics. The cursor moves along the flow
(left, right) and between lines (up, down, to the term nearest in column); enter or a
click asks for the term (`Picked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message

from cortex_tui.overview.models import TermCount
from cortex_tui.tui.widgets.item_cursor import ItemCursor

TIERS = (0.6, 0.35, 0.15)
"""Shares of the top count at which a term enters tiers 3, 2, 1 (below: tier 0)."""
GAP = 3


def shown(term: TermCount) -> str:
    return f"#{term.term}" if term.kind == "tag" else term.term


def tier(count: int, top: int) -> int:
    share = count / top if top else 0.0
    return next((len(TIERS) - i for i, edge in enumerate(TIERS) if share >= edge), 0)


@dataclass(frozen=True)
class Placed:
    index: int
    line: int
    column: int
    width: int


def layout(terms: Sequence[TermCount], width: int) -> list[list[Placed]]:
    """Terms in order, flowed into lines of at most `width` cells."""
    lines: list[list[Placed]] = [[]]
    column = 0
    for index, term in enumerate(terms):
        size = len(shown(term))
        if lines[-1] and column + GAP + size > width:
            lines.append([])
            column = 0
        start = column + (GAP if lines[-1] else 0)
        lines[-1].append(Placed(index, len(lines) - 1, start, size))
        column = start + size
    return [line for line in lines if line]


class WordCloudView(ItemCursor[TermCount]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Previous", show=False),
        Binding("right", "move(1)", "Next", show=False),
        Binding("up", "line(-1)", "Up", show=False),
        Binding("down", "line(1)", "Down", show=False),
        Binding("enter", "pick", "Recall it", id="words.pick"),
    ]

    DEFAULT_CSS = """
    WordCloudView { height: 1fr; padding: 1 2; }
    """

    @dataclass
    class Picked(Message):
        """A term chosen to be recalled."""

        term: TermCount

    @dataclass
    class Moved(Message):
        """The cursor is on another term (None: the cloud is empty)."""

        term: TermCount | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._ramp: list[str] = ["", "", "", ""]

    def show(self, terms: list[TermCount], ramp: list[str]) -> None:
        """`ramp`: a style per tier, faint to strong."""
        self._items, self._ramp = terms, ramp
        self.set_reactive(WordCloudView.cursor, 0)
        self.post_message(self.Moved(self.selected))
        self.refresh()

    def _lines(self) -> list[list[Placed]]:
        return layout(self._items, max(self.content_size.width, 10))

    def render(self) -> Content:
        if not self._items:
            return Content.styled("no words yet: nothing matches this filter", "$text-muted")
        top = self._items[0].count
        rows = []
        for line in self._lines():
            pieces: list[Content | str | tuple[str, str]] = []
            column = 0
            for placed in line:
                term = self._items[placed.index]
                pieces.append(" " * (placed.column - column))
                style = self._ramp[tier(term.count, top)]
                if term.kind == "entity":
                    style += " italic"
                if placed.index == self.cursor and self.has_focus:
                    style += " reverse"
                pieces.append((shown(term), style.strip()))
                column = placed.column + placed.width
            rows.append(Content.assemble(*pieces))
        return Content("\n").join(rows)

    def watch_cursor(self) -> None:
        self.post_message(self.Moved(self.selected))

    def action_line(self, step: int) -> None:
        lines = self._lines()
        here = next((p for line in lines for p in line if p.index == self.cursor), None)
        if here is None or not 0 <= here.line + step < len(lines):
            return
        middle = here.column + here.width / 2
        target = min(lines[here.line + step], key=lambda p: abs(p.column + p.width / 2 - middle))
        self.cursor = target.index

    def action_pick(self) -> None:
        if self.selected is not None:
            self.post_message(self.Picked(self.selected))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for line in self._lines():
            for placed in line:
                if (
                    placed.line == offset.y
                    and placed.column <= offset.x < placed.column + placed.width
                ):
                    self.cursor = placed.index
                    self.action_pick()
                    return
