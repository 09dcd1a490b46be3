"""How the Map, Words, Timeline and Health panes look, in the app, on the demo data.

The screenshot scene of each pane, plus a state of each that matters: the map coloured
by conflict state with superseded versions shown, a project's words, a year of days,
and a stuck spool's concern, at the 100×30 size. Frozen clock, fixed data, no timings
(the Health pane hides pid, uptime, paths and disk sizes in stable mode).

Update after an intended change with
`pytest tests/tui/test_snapshots_overview.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.scenes import Scene, scenes, settle, show_pane
from cortex_tui.tui.screenshots import demo_app
from tests.conftest import spool_waiting_turn

MINE = ("map", "words", "timeline", "health")
NARROW = (100, 30)


def _scenes() -> list[Scene]:
    return [scene for scene in scenes() if scene.name in MINE]


@pytest.mark.parametrize("scene", _scenes(), ids=lambda scene: scene.name)
def test_scene(scene: Scene, snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    app = demo_app(demo_engine, tui_home, scene.theme)
    assert snap_compare(app, terminal_size=scene.size, run_before=scene.prepare)


def _keys(pane: str, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def prepare(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.pause(0.1)
        await show_pane(pilot, pane)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return prepare


STATES = {
    "map-conflicts-superseded": _keys("7", "c", "c", "s", "right", "right"),
    "words-project": _keys("8", "p", "down"),
    "timeline-year-superseded": _keys("9", "t", "m", "left"),
}


@pytest.mark.parametrize("state", STATES, ids=lambda name: f"{name}-100x30")
def test_state(state: str, snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    app = demo_app(demo_engine, tui_home)
    assert snap_compare(app, terminal_size=NARROW, run_before=STATES[state])


def test_health_with_a_stuck_spool(
    snap_compare: Any, demo_engine: LocalEngine, tui_home: Path
) -> None:
    """The spool's entry is stamped on the wall clock, so its age is the only moving
    part: three days and ten minutes reads "3 days" for most of a day."""
    spool_waiting_turn(tui_home, 3 * 86400 + 600)
    app = demo_app(demo_engine, tui_home)
    assert snap_compare(app, terminal_size=NARROW, run_before=_keys("0"))
