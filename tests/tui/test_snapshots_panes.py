"""How the Conflicts, History, Graph and Memories panes look, in the app, on the demo data.

The app's screenshot scene of each pane, plus the states that matter for curation: a
confirmation, a version chain with word diffs, a walk in the graph, a filtered browser,
at the 100×30 and 200×50 sizes people use. Frozen clock, fixed data, no timings.

Update after an intended change with
`pytest tests/tui/test_snapshots_panes.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList

from cortex_tui.demo.loader import demo_id
from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.panes.conflicts import ConflictsPane
from cortex_tui.tui.scenes import Scene, scenes, settle, show_pane
from cortex_tui.tui.screenshots import demo_app
from cortex_tui.tui.widgets.neighbour_tree import NeighbourTree

MINE = ("conflicts", "history", "graph", "memories")
NARROW = (100, 30)
WIDE = (200, 50)


def _scenes() -> list[Scene]:
    return [scene for scene in scenes() if scene.name in MINE]


async def _started(pilot: Pilot[None]) -> None:
    """Let the tabs finish mounting: switching panes before that is undone by the mount."""
    await settle(pilot)
    await pilot.pause(0.1)


@pytest.mark.parametrize("scene", _scenes(), ids=lambda scene: scene.name)
def test_scene(scene: Scene, snap_compare: Any, demo_engine: LocalEngine, tui_home: Path) -> None:
    async def prepare(pilot: Pilot[None]) -> None:
        await _started(pilot)
        await scene.prepare(pilot)

    app = demo_app(demo_engine, tui_home, scene.theme)
    assert snap_compare(app, terminal_size=scene.size, run_before=prepare)


async def _keep_confirmation(pilot: Pilot[None]) -> None:
    await _started(pilot)
    await show_pane(pilot, "2")
    pilot.app.query_one("#conflict-members", OptionList).focus()
    await pilot.press("down", "k")
    await settle(pilot)


async def _staging_conflict(pilot: Pilot[None]) -> None:
    """A group the LLM judge made: each member's facts, and why they conflict."""
    await _started(pilot)
    await show_pane(pilot, "2")
    groups = pilot.app.query_one("#conflict-groups", OptionList)
    pane = pilot.app.query_one(ConflictsPane)
    staging = pane.engine.get(demo_id("m024")).conflict_group_id
    groups.highlighted = groups.get_option_index(staging)
    await settle(pilot)


async def _postgres_chain(pilot: Pilot[None]) -> None:
    await _started(pilot)
    await show_pane(pilot, "3")
    chains = pilot.app.query_one("#history-chains", OptionList)
    chains.highlighted = chains.get_option_index(demo_id("m013"))
    await settle(pilot)


async def _walked_to_priya(pilot: Pilot[None]) -> None:
    await _started(pilot)
    await show_pane(pilot, "4")
    tree = pilot.app.query_one(NeighbourTree)
    node = next(
        c for c in tree.root.children if c.data and c.data.node.entity.id == demo_id("e_priya")
    )
    tree.move_cursor(node)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("down")
    await settle(pilot)


async def _harbor_memories(pilot: Pilot[None]) -> None:
    await _started(pilot)
    await show_pane(pilot, "5")
    pilot.app.query_one("#memories-project", Input).value = "harbor"
    await settle(pilot)
    pilot.app.query_one(DataTable).focus()
    await pilot.press("down", "down")
    await settle(pilot)


async def _a_reinforced_memory(pilot: Pilot[None]) -> None:
    """The detail of a memory that absorbed a paraphrase: why, and what it absorbed."""
    await _started(pilot)
    await show_pane(pilot, "5")
    pilot.app.query_one("#memories-text", Input).value = "Vault"
    await settle(pilot)
    pilot.app.query_one(DataTable).focus()
    await pilot.press("down")
    await settle(pilot)


@pytest.mark.parametrize(
    ("prepare", "size"),
    [
        (_keep_confirmation, NARROW),
        (_staging_conflict, NARROW),
        (_postgres_chain, NARROW),
        (_postgres_chain, WIDE),
        (_walked_to_priya, NARROW),
        (_walked_to_priya, WIDE),
        (_harbor_memories, NARROW),
        (_harbor_memories, WIDE),
        (_a_reinforced_memory, NARROW),
    ],
    ids=[
        "conflicts-keep-100x30",
        "conflicts-reason-100x30",
        "history-diff-100x30",
        "history-diff-200x50",
        "graph-walk-100x30",
        "graph-walk-200x50",
        "memories-filtered-100x30",
        "memories-filtered-200x50",
        "memories-decision-100x30",
    ],
)
def test_state(
    prepare: Any,
    size: tuple[int, int],
    snap_compare: Any,
    demo_engine: LocalEngine,
    tui_home: Path,
) -> None:
    app = demo_app(demo_engine, tui_home)
    assert snap_compare(app, terminal_size=size, run_before=prepare)
