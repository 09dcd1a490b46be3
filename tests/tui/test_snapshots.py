"""How the app looks: the screenshot scenes of the Recall and Stats panes and every shipped
theme, on the demo data with a frozen clock, at a fixed size, without timings.

Update after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`
and review the SVGs in `__snapshots__/`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.scenes import Scene, scenes
from cortex_tui.tui.screenshots import demo_app

MINE = ("recall", "stats", "theme-")
"""Scenes of this file; the other panes' snapshots live with their own tests."""


def _scenes() -> list[Scene]:
    return [scene for scene in scenes() if scene.name.startswith(MINE)]


@pytest.mark.parametrize("scene", _scenes(), ids=lambda scene: scene.name)
def test_scene(scene: Scene, snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    app = demo_app(demo_engine, tui_home, scene.theme)
    assert snap_compare(app, terminal_size=scene.size, run_before=scene.prepare)


def test_narrow_terminal_stacks_the_breakdown(
    snap_compare: Any, demo_engine: LocalEngine, tui_home: Path
) -> None:
    scene = next(s for s in scenes() if s.name == "recall")
    app = demo_app(demo_engine, tui_home)
    assert snap_compare(app, terminal_size=(100, 30), run_before=scene.prepare)


def test_wide_terminal_puts_the_breakdown_beside(
    snap_compare: Any, demo_engine: LocalEngine, tui_home: Path
) -> None:
    scene = next(s for s in scenes() if s.name == "recall-compare")
    app = demo_app(demo_engine, tui_home)
    assert snap_compare(app, terminal_size=(200, 50), run_before=scene.prepare)
