"""The Graph pane: search, walking the neighbourhood, and entity curation in the store."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList, Static

from cortex_tui.demo.loader import demo_id
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import CortexError
from cortex_tui.graph.views import Neighbourhood
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.panes.base import OpenHistory
from cortex_tui.tui.panes.graph import GraphPane
from cortex_tui.tui.widgets.choice import ChoiceModal
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.neighbour_tree import NeighbourTree, tree_items
from cortex_tui.tui.widgets.prompt import PromptModal
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (120, 36)
ATLAS = demo_id("e_atlas")


def _tree_ids(app: PaneApp) -> list[str]:
    tree = app.query_one(NeighbourTree)
    return [c.data.node.entity.id for c in tree.root.children if c.data]


def _match_ids(app: PaneApp) -> list[str | None]:
    return [o.id for o in app.query_one("#graph-matches", OptionList).options]


def _crumb(app: PaneApp) -> str:
    return str(app.query_one("#graph-breadcrumb", Static).render())


async def _move_to(app: PaneApp, entity_id: str) -> None:
    tree = app.query_one(NeighbourTree)
    tree.focus()
    node = next(c for c in tree.root.children if c.data and c.data.node.entity.id == entity_id)
    tree.move_cursor(node)


def test_tree_items_cover_every_relation(demo_engine: LocalEngine) -> None:
    hood: Neighbourhood = demo_engine.graph.neighbourhood(ATLAS, hops=2)
    items = tree_items(hood)
    shown = {edge.relation.id for item in items for edge in item.edges}
    assert shown == {edge.relation.id for edge in hood.edges}
    for item in items:
        for edge in item.edges:
            ends = {edge.relation.subject_id, edge.relation.object_id}
            assert ends == {item.node.entity.id, item.parent_id}


async def test_starts_on_the_most_mentioned_entity(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _crumb(app).startswith("atlas")
        hood = demo_engine.graph.neighbourhood(ATLAS, hops=2)
        one_hop = {n.entity.id for n in hood.nodes if n.hops == 1}
        assert set(_tree_ids(app)) >= one_hop
        memories = app.query_one("#graph-memories", OptionList)
        atlas = next(n for n in hood.nodes if n.hops == 0)
        assert [o.id for o in memories.options] == [m.id for m in atlas.memories]


async def test_fuzzy_search_lists_matches(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"tomas")
        await settle(pilot)
        matches = app.query_one("#graph-matches", OptionList)
        assert matches.options[0].id == demo_id("e_tomas")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert _crumb(app).startswith("Tomás Herrera")
        assert app.query_one(NeighbourTree).root.data is not None


async def test_enter_recentres_and_back_returns(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _move_to(app, demo_id("e_priya"))
        await pilot.press("enter")
        await settle(pilot)
        assert _crumb(app).startswith("atlas › Priya Raman")
        root = app.query_one(NeighbourTree).root.data
        assert root is not None and root.node.entity.id == demo_id("e_priya")
        await pilot.press("b")
        await settle(pilot)
        root = app.query_one(NeighbourTree).root.data
        assert root is not None and root.node.entity.id == ATLAS
        assert _crumb(app) == "atlas"


async def test_merge_into_merges_the_entities(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    ruff = demo_id("e_ruff")
    mentions = set(demo_engine.graph.get(ruff).memory_ids)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _move_to(app, ruff)
        await pilot.press("m")
        assert isinstance(app.screen, PromptModal)
        await pilot.press(*"fastapi", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceModal)
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        survivor = demo_engine.graph.get(demo_id("e_fastapi"))
        assert "ruff" in survivor.aliases
        assert mentions <= set(survivor.memory_ids)
        with pytest.raises(CortexError):
            demo_engine.graph.get(ruff)
        assert "FastAPI" in _crumb(app)


async def test_add_alias_and_rename_write_the_entity(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(NeighbourTree).focus()
        await pilot.press("a")
        await pilot.press(*"Northwind Atlas", "enter")
        await settle(pilot)
        assert "Northwind Atlas" in demo_engine.graph.get(ATLAS).aliases
        await pilot.press("n")
        app.screen.query_one(Input).value = "atlas-platform"
        await pilot.press("enter")
        await settle(pilot)
        renamed = demo_engine.graph.get(ATLAS)
        assert renamed.name == "atlas-platform" and "atlas" in renamed.aliases
        assert _crumb(app) == "atlas-platform"


async def test_refused_alias_is_reported_not_written(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(NeighbourTree).focus()
        await pilot.press("a", *"harbor", "enter")
        await settle(pilot)
        assert "harbor" not in demo_engine.graph.get(ATLAS).aliases
        assert any("already names" in n.message for n in app._notifications)


async def test_history_of_a_mentioning_memory(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        memories = app.query_one("#graph-memories", OptionList)
        memories.focus()
        await pilot.press("down", "h")
        opened = [m for m in app.routed if isinstance(m, OpenHistory)]
        assert [m.memory_id for m in opened] == [memories.options[1].id]


def _graph_state(engine: LocalEngine) -> tuple[object, ...]:
    """Every entity, relation and memory as stored, to compare before and after undo."""
    everything = MemoryFilter(current_only=False, statuses=None)
    return (
        sorted(engine.store.all_entities(), key=lambda e: e.id),
        sorted(engine.store.all_relations(), key=lambda r: r.id),
        sorted(engine.store.iter_memories(everything), key=lambda m: m.id),
    )


def _messages(app: PaneApp, severity: str) -> list[str]:
    return [n.message for n in app._notifications if n.severity == severity]


async def test_u_undoes_a_merge_into(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    ruff = demo_id("e_ruff")
    before = _graph_state(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _move_to(app, ruff)
        await pilot.press("m", *"fastapi", "enter")
        await settle(pilot)
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmModal)
        assert "u undoes the merge" in str(app.screen.query_one("#confirm-body", Static).render())
        await pilot.press("y")
        await settle(pilot)
        with pytest.raises(CortexError):
            demo_engine.graph.get(ruff)

        await pilot.press("u")
        await settle(pilot)

        assert _graph_state(demo_engine) == before
        assert demo_engine.graph.get("ruff").id == ruff
        assert ruff in _tree_ids(app) or ruff in _match_ids(app)
        assert not _messages(app, "error")
        assert any(m.startswith("Undid entity-merge") for m in _messages(app, "information"))
        assert "FastAPI" in _crumb(app)


async def test_u_undoes_a_rename(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    before = _graph_state(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(NeighbourTree).focus()
        await pilot.press("n")
        app.screen.query_one(Input).value = "atlas-platform"
        await pilot.press("enter")
        await settle(pilot)
        assert _crumb(app) == "atlas-platform"

        await pilot.press("u")
        await settle(pilot)

        assert _graph_state(demo_engine) == before
        assert demo_engine.graph.get(ATLAS).name == "atlas"
        assert _crumb(app) == "atlas"
        assert any("renamed 'atlas'" in m for m in _messages(app, "information"))
        assert _match_ids(app)[0] == ATLAS


async def test_u_when_the_centre_is_gone_recentres(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _crumb(app).startswith("atlas")
        # Another client merges the centre away, then adds an alias (the last action).
        demo_engine.graph.merge(ATLAS, demo_id("e_harbor"))
        demo_engine.graph.add_alias(demo_id("e_priya"), "PR")
        app.query_one(NeighbourTree).focus()

        await pilot.press("u")
        await settle(pilot)

        assert "PR" not in demo_engine.graph.get(demo_id("e_priya")).aliases
        assert not _messages(app, "error")
        root = app.query_one(NeighbourTree).root.data
        assert root is not None and root.node.entity.id != ATLAS
        assert _crumb(app) == root.node.entity.name


async def test_u_with_nothing_to_undo_says_so(demo_engine: LocalEngine) -> None:
    app = PaneApp(GraphPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert any("nothing to undo" in m for m in _messages(app, "error"))
