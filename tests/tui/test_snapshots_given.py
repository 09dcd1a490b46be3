"""How the Given pane looks on the demo's recorded turns: the app's screenshot scene (a
session's first prompt, a memory's score then and now) and the memories given for
nothing. Frozen clock, fixed data, no timings.

Update after an intended change with
`pytest tests/tui/test_snapshots_given.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.scenes import scenes, settle, show_pane
from cortex_tui.tui.screenshots import demo_app

SIZE = (120, 36)


async def _started(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await pilot.pause(0.1)


def test_scene(snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    scene = next(scene for scene in scenes() if scene.name == "given")

    async def prepare(pilot: Pilot[None]) -> None:
        await _started(pilot)
        await scene.prepare(pilot)

    app = demo_app(demo_engine, tui_home, scene.theme)
    assert snap_compare(app, terminal_size=scene.size, run_before=prepare)


def test_given_for_nothing(snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    async def prepare(pilot: Pilot[None]) -> None:
        await _started(pilot)
        await show_pane(pilot, "G")
        pilot.app.query_one("#given-memories", DataTable).focus()
        await pilot.press("f")
        await settle(pilot)

    assert snap_compare(demo_app(demo_engine, tui_home), terminal_size=SIZE, run_before=prepare)
