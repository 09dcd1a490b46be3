"""A focusable view of a list of items (the days of a heatmap, the terms of a word cloud)
with a cursor on one of them."""

from __future__ import annotations

from typing import Generic, TypeVar

from textual.reactive import reactive
from textual.widget import Widget

T = TypeVar("T")


class ItemCursor(Widget, Generic[T], can_focus=True):
    """The cursor is drawn only while the widget has focus, so it redraws on focus and on
    blur; `action_move` steps along the list and stops at either end. Subclasses keep
    their items in `_items`."""

    cursor: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._items: list[T] = []

    @property
    def selected(self) -> T | None:
        return self._items[self.cursor] if 0 <= self.cursor < len(self._items) else None

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_move(self, step: int) -> None:
        if self._items:
            self.cursor = max(0, min(len(self._items) - 1, self.cursor + step))
