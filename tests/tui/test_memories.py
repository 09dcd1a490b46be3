"""The Memories pane: paged server-side browsing, and every edit checked in the store."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, Input, Select, Static, TextArea

from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import Memory, MemoryDraft, MemoryPage, MemoryStatus, MemoryType, Scope
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.panes.base import ExplainMemory, OpenHistory
from cortex_tui.tui.panes.memories import PAGE, Filters, MemoriesPane
from cortex_tui.tui.widgets.choice import ChoiceModal
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.text_edit import EditTextModal
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (120, 34)


class CountingEngine:
    """The demo engine, recording every `list_memories` call the pane makes."""

    def __init__(self, engine: LocalEngine) -> None:
        self._engine = engine
        self.calls: list[tuple[MemoryFilter, int, str | None]] = []

    def list_memories(
        self, flt: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage:
        self.calls.append((flt, limit, offset))
        return self._engine.list_memories(flt, limit, offset)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def _pane(app: PaneApp) -> MemoriesPane:
    pane = app.pane
    assert isinstance(pane, MemoriesPane)
    return pane


def _shown(app: PaneApp) -> list[Memory]:
    return list(_pane(app)._rows.values())


async def _select(app: PaneApp, pilot: Any, content_start: str) -> Memory:
    table = app.query_one(DataTable)
    table.focus()
    pane = _pane(app)
    memory = next(m for m in pane._rows.values() if m.content.startswith(content_start))
    table.move_cursor(row=table.get_row_index(memory.id))
    await pilot.pause()
    assert pane.selected == memory
    return memory


def test_filters_become_one_store_filter() -> None:
    flt = Filters(
        text=" vault ", type=MemoryType.RULE, status="any", project="atlas", tag="deploy"
    ).to_filter()
    assert flt.text == "vault" and flt.types == [MemoryType.RULE]
    assert flt.statuses is None and flt.project == "atlas" and flt.project_only
    assert flt.tags == ["deploy"] and flt.current_only
    assert Filters(all_versions=True).to_filter().current_only is False


async def test_loads_a_page_then_more_on_demand(demo_engine: LocalEngine) -> None:
    engine = CountingEngine(demo_engine)
    app = PaneApp(MemoriesPane(engine))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        total = demo_engine.list_memories(MemoryFilter(), limit=1).total
        assert total > PAGE
        assert len(_shown(app)) == PAGE
        assert [(limit, offset) for _, limit, offset in engine.calls] == [(PAGE, None)]
        table = app.query_one(DataTable)
        table.focus()
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert len(_shown(app)) == total
        assert len(engine.calls) == 2 and engine.calls[1][2] is not None
        summary = str(app.query_one("#memories-summary", Static).render())
        assert f"{total} match · {total} loaded" in summary


async def test_type_and_text_filters_run_in_the_store(demo_engine: LocalEngine) -> None:
    engine = CountingEngine(demo_engine)
    app = PaneApp(MemoriesPane(engine))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#memories-type", Select).value = MemoryType.RULE
        await settle(pilot)
        assert _shown(app) and all(m.type is MemoryType.RULE for m in _shown(app))
        assert engine.calls[-1][0].types == [MemoryType.RULE]
        app.query_one("#memories-text", Input).value = "terraform"
        await settle(pilot)
        assert _shown(app)
        assert all(
            "terraform" in m.content.lower() and m.type is MemoryType.RULE for m in _shown(app)
        )
        assert engine.calls[-1][0].text == "terraform"


async def test_project_and_tag_filters(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#memories-project", Input).value = "harbor"
        await settle(pilot)
        assert _shown(app) and all(m.project == "harbor" for m in _shown(app))
        app.query_one("#memories-tag", Input).value = "kafka"
        await settle(pilot)
        assert _shown(app) and all("kafka" in m.tags for m in _shown(app))


async def test_edit_writes_a_new_version(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        old = await _select(app, pilot, "Tomás prefers `uv`")
        await pilot.press("e")
        app.screen.query_one(TextArea).text = "Tomás prefers `uv` [always], never pip."
        await pilot.press("ctrl+s")
        await settle(pilot)
        retired = demo_engine.get(old.id)
        assert retired.valid_to is not None and retired.superseded_by_id
        new = demo_engine.get(retired.superseded_by_id)
        assert new.is_current and new.content == "Tomás prefers `uv` [always], never pip."
        assert new.supersedes_id == old.id
        selected = _pane(app).selected
        assert selected is not None and selected.id == new.id
        detail = str(app.query_one("#memories-detail", Static).render())
        assert "[always]" in detail
        table = app.query_one(DataTable)
        assert "[always]" in str(table.get_row(new.id)[-1])


async def test_retype_rescope_retag(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _select(app, pilot, "Tomás prefers `uv`")
        await pilot.press("t")
        assert isinstance(app.screen, ChoiceModal)
        app.screen.query_one("#choice-list").highlighted = list(MemoryType).index(MemoryType.RULE)
        await pilot.press("enter")
        await settle(pilot)
        retyped = _pane(app).selected
        assert retyped is not None and demo_engine.get(retyped.id).type is MemoryType.RULE
        await pilot.press("s")
        app.screen.query_one("#choice-list").highlighted = list(Scope).index(Scope.SESSION)
        await pilot.press("enter")
        await settle(pilot)
        rescoped = _pane(app).selected
        assert rescoped is not None and demo_engine.get(rescoped.id).scope is Scope.SESSION
        await pilot.press("g")
        app.screen.query_one(Input).value = "python, uv, packaging"
        await pilot.press("enter")
        await settle(pilot)
        tagged = _pane(app).selected
        assert tagged is not None
        current = demo_engine.get(tagged.id)
        assert current.tags == ["python", "uv", "packaging"] and current.is_current
        assert len(demo_engine.history(current.id)) == 4


async def test_forget_marks_deleted_and_undo_brings_it_back(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        memory = await _select(app, pilot, "Tomás prefers `uv`")
        await pilot.press("x")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        assert demo_engine.get(memory.id).status is MemoryStatus.DELETED
        assert memory.id not in _pane(app)._rows
        app.query_one("#memories-status", Select).value = MemoryStatus.DELETED.value
        await settle(pilot)
        assert [m.id for m in _shown(app)] == [memory.id]
        await pilot.press("u")
        await settle(pilot)
        assert demo_engine.get(memory.id).status is MemoryStatus.ACTIVE
        assert _shown(app) == []


async def test_undo_reverts_an_edit(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        old = await _select(app, pilot, "Tomás prefers `uv`")
        await pilot.press("e")
        app.screen.query_one(TextArea).text = "Tomás prefers pip."
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not demo_engine.get(old.id).is_current
        app.query_one(DataTable).focus()
        await pilot.press("u")
        await settle(pilot)
        assert demo_engine.get(old.id).is_current


async def test_all_versions_shows_superseded_ones(demo_engine: LocalEngine) -> None:
    written = demo_engine.remember(MemoryDraft(content="Standups are at 09:30 [CET]."))
    demo_engine.update(written.memory.id, content="Standups are at 10:00 [CET].")
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#memories-text", Input).value = "standups"
        await settle(pilot)
        assert [m.content for m in _shown(app)] == ["Standups are at 10:00 [CET]."]
        app.query_one(DataTable).focus()
        await pilot.press("v")
        await settle(pilot)
        assert sorted(m.content for m in _shown(app)) == [
            "Standups are at 09:30 [CET].",
            "Standups are at 10:00 [CET].",
        ]
        await _select(app, pilot, "Standups are at 09:30")
        await pilot.press("e")
        assert not isinstance(app.screen, EditTextModal)  # only the current version is edited


async def test_history_and_why_not_messages(demo_engine: LocalEngine) -> None:
    app = PaneApp(MemoriesPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        memory = await _select(app, pilot, "Tomás prefers `uv`")
        await pilot.press("h", "w")
        routed = [m for m in app.routed if isinstance(m, OpenHistory | ExplainMemory)]
        assert [(type(m), m.memory_id) for m in routed] == [
            (OpenHistory, memory.id),
            (ExplainMemory, memory.id),
        ]
