"""Named screens of the app on the demo data, shared by `screenshots` and snapshot tests.

A scene is a pane plus the keys that bring it into a telling state. Every pane in the
registry gets a scene (so a new pane is photographed without touching this file), the
Recall pane gets its modes, and every shipped theme gets the Recall breakdown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field

from textual.app import App
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList
from textual.worker import WorkerCancelled

from cortex_tui.tui.registry import PANES
from cortex_tui.tui.themes import load_themes, theme_dirs

SIZE = (120, 36)
DEMO_QUERY = "how do we deploy to production"
WHY_NOT_ID = "a3a63051"
"""Who runs release management: a memory that ranks outside the top 20 for `DEMO_QUERY`."""

Prepare = Callable[[Pilot[None]], Awaitable[None]]


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every engine call has come back and the screen is repainted."""
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()
    await pilot.pause(0.05)  # tables size their columns on the next idle


async def workers_done(app: App[None]) -> None:
    """Wait for every worker; one cancelled because a newer call of the same name replaced
    it is done too (Textual's `wait_for_complete` raises for it)."""
    for worker in list(app.workers):
        with suppress(WorkerCancelled):
            await worker.wait()


async def show_pane(pilot: Pilot[None], key: str) -> None:
    await pilot.app.run_action(f"show_pane('{_pane_id(key)}')")
    await settle(pilot)


def _pane_id(key: str) -> str:
    return next(pane.pane_id for pane in PANES if pane.key == key)


async def submit(pilot: Pilot[None], field_id: str, text: str) -> None:
    """Put `text` in the input `field_id`, press enter, and wait for what it starts."""
    field = pilot.app.query_one(field_id, Input)
    field.focus()
    field.value = text
    await pilot.press("enter")
    await settle(pilot)


async def ask(pilot: Pilot[None], query: str = DEMO_QUERY) -> None:
    """Type a query into the Recall pane and wait for the ranking."""
    await show_pane(pilot, "1")
    await submit(pilot, "#recall-query", query)


async def _recall(pilot: Pilot[None]) -> None:
    await ask(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


async def _compare(pilot: Pilot[None]) -> None:
    await ask(pilot)
    await pilot.press("c")
    pilot.app.query_one("#recall-query-b", Input).value = "rules for releasing on a friday"
    await pilot.press("enter")
    await settle(pilot)


async def _why_not(pilot: Pilot[None]) -> None:
    await ask(pilot)
    await pilot.press("w", *WHY_NOT_ID, "enter")
    await settle(pilot)


async def _weights(pilot: Pilot[None]) -> None:
    await ask(pilot)
    await pilot.press("e")
    await settle(pilot)


async def _map(pilot: Pilot[None]) -> None:
    """The map with the demo query placed on it: where recall's picks lie."""
    await show_pane(pilot, "7")
    await submit(pilot, "#map-query", DEMO_QUERY)


async def _words(pilot: Pilot[None]) -> None:
    await show_pane(pilot, "8")
    await pilot.press("right", "right", "down")
    await settle(pilot)


async def _given(pilot: Pilot[None]) -> None:
    """The claude session's first prompt (standing rules, then the recall), its first
    recalled memory highlighted: its score on that turn beside its score now."""
    await show_pane(pilot, "G")
    listing = pilot.app.query_one("#given-list", OptionList)
    first_prompt = max(index for index, option in enumerate(listing.options) if not option.disabled)
    listing.focus()
    listing.highlighted = first_prompt
    await settle(pilot)
    table = pilot.app.query_one("#given-memories", DataTable)
    table.focus()
    standing = sum(
        str(table.get_cell_at(Coordinate(row, 1))) == "std" for row in range(table.row_count)
    )
    table.move_cursor(row=standing)
    await settle(pilot)


@dataclass(frozen=True)
class Scene:
    name: str
    prepare: Prepare
    theme: str | None = None
    size: tuple[int, int] = field(default=SIZE)


def _pane_scene(pane_key: str, pane_id: str) -> Scene:
    async def prepare(pilot: Pilot[None]) -> None:
        await show_pane(pilot, pane_key)

    return Scene(pane_id, prepare)


def shipped_themes() -> list[str]:
    """The themes in the project's own `themes/` folder (not the user's)."""
    themes, _ = load_themes(theme_dirs(None))
    return sorted(theme.name for theme in themes)


def scenes() -> list[Scene]:
    """Every pane (Recall and Map with a query, Words with a term picked), Recall's
    modes, and the Recall breakdown per theme."""
    special = {"recall": _recall, "map": _map, "words": _words, "given": _given}
    found = [
        Scene(pane.pane_id, special[pane.pane_id])
        if pane.pane_id in special
        else _pane_scene(pane.key, pane.pane_id)
        for pane in PANES
    ]
    found += [
        Scene("recall-compare", _compare),
        Scene("recall-why-not", _why_not),
        Scene("recall-weights", _weights),
    ]
    found += [Scene(f"theme-{name}", _recall, theme=name) for name in shipped_themes()]
    return found
