"""The Conflicts pane against a real engine: every decision is checked in the store."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, TextArea

from cortex_tui.demo.loader import demo_id
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import ConflictStatus, MemoryDraft
from cortex_tui.tui.panes.base import OpenHistory, StoreChanged, Written
from cortex_tui.tui.panes.conflicts import ConflictsLoaded, ConflictsPane
from cortex_tui.tui.widgets.confirm import ConfirmModal
from tests.tui.helpers import Posted, keep_second_member
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 32)


def _app(engine: LocalEngine) -> PaneApp:
    return PaneApp(ConflictsPane(engine))


def _first_group(engine: LocalEngine) -> tuple[str, list[str]]:
    group = engine.curation.conflicts()[0]
    return group.id, [m.id for m in group.members]


async def test_lists_every_group_with_its_members(demo_engine: LocalEngine) -> None:
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        groups = app.query_one("#conflict-groups", OptionList)
        assert [o.id for o in groups.options] == [g.id for g in demo_engine.curation.conflicts()]
        members = app.query_one("#conflict-members", OptionList)
        first = demo_engine.curation.conflicts()[0]
        assert [o.id for o in members.options if o.id] == [m.id for m in first.members]


async def test_keep_retires_the_others_in_the_store(demo_engine: LocalEngine) -> None:
    group_id, (older, newer) = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await keep_second_member(pilot)
        kept, retired = demo_engine.get(newer), demo_engine.get(older)
        assert kept.is_current and kept.conflict_status is ConflictStatus.RESOLVED
        assert retired.valid_to is not None and retired.superseded_by_id == newer
        assert group_id not in [g.id for g in demo_engine.curation.conflicts()]
        assert any(isinstance(m, StoreChanged) for m in app.routed)
        assert group_id not in [o.id for o in app.query_one("#conflict-groups", OptionList).options]


async def test_cancelled_confirmation_changes_nothing(demo_engine: LocalEngine) -> None:
    group_id, _ = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("n")
        await settle(pilot)
        assert group_id in [g.id for g in demo_engine.curation.conflicts()]


async def test_merge_replaces_members_with_the_written_text(demo_engine: LocalEngine) -> None:
    group_id, members = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")
        area = app.screen.query_one(TextArea)
        area.text = "pg-staging is reset [weekly] on Sundays at 03:00 UTC."
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        for memory_id in members:
            old = demo_engine.get(memory_id)
            assert old.valid_to is not None and old.superseded_by_id
        merged = demo_engine.get(old.superseded_by_id or "")
        assert merged.content == "pg-staging is reset [weekly] on Sundays at 03:00 UTC."
        assert merged.is_current
        assert group_id not in [g.id for g in demo_engine.curation.conflicts()]


async def test_dismiss_keeps_both_current_and_undo_reopens(demo_engine: LocalEngine) -> None:
    group_id, members = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d", "y")
        await settle(pilot)
        for memory_id in members:
            memory = demo_engine.get(memory_id)
            assert memory.is_current and memory.conflict_status is ConflictStatus.DISMISSED
        assert group_id not in [g.id for g in demo_engine.curation.conflicts()]
        await pilot.press("u")
        await settle(pilot)
        assert group_id in [g.id for g in demo_engine.curation.conflicts()]
        groups = app.query_one("#conflict-groups", OptionList)
        assert group_id in [o.id for o in groups.options]


async def test_undo_after_keep_restores_the_loser(demo_engine: LocalEngine) -> None:
    _, (older, newer) = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("k", "y")
        await settle(pilot)
        assert not demo_engine.get(newer).is_current
        await pilot.press("u")
        await settle(pilot)
        assert demo_engine.get(newer).is_current
        assert demo_engine.get(older).conflict_status is ConflictStatus.ACTIVE


async def test_history_asks_for_the_selected_member(demo_engine: LocalEngine) -> None:
    _, (older, _) = _first_group(demo_engine)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        opened = [m for m in app.routed if isinstance(m, OpenHistory)]
        assert [m.memory_id for m in opened] == [older]


async def test_content_with_brackets_is_shown_intact(demo_engine: LocalEngine) -> None:
    a = demo_engine.remember(MemoryDraft(content="Logs are tagged [harbor] [ingest] in prod."))
    b = demo_engine.remember(MemoryDraft(content="Logs are tagged [lighthouse] in prod."))
    _mark_conflict(demo_engine, a.memory.id, b.memory.id)
    app = _app(demo_engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        groups = app.query_one("#conflict-groups", OptionList)
        groups.highlighted = len(groups.options) - 1
        await settle(pilot)
        members = app.query_one("#conflict-members", OptionList)
        shown = "\n".join(str(o.prompt) for o in members.options)
        assert "[harbor] [ingest]" in shown and "[lighthouse]" in shown


def _mark_conflict(engine: LocalEngine, a: str, b: str) -> None:
    group = demo_id(f"conflict-test:{a}:{b}")
    first, second = engine.get(a), engine.get(b)
    engine.store.update_memories(
        [
            first.model_copy(
                update={"conflict_group_id": group, "conflict_status": ConflictStatus.ACTIVE}
            ),
            second.model_copy(
                update={"conflict_group_id": group, "conflict_status": ConflictStatus.ACTIVE}
            ),
        ]
    )


async def test_the_groups_and_each_decision_arrive_as_typed_answers(
    demo_engine: LocalEngine,
) -> None:
    group_id, (_, newer) = _first_group(demo_engine)
    posted = Posted()
    app = _app(demo_engine)
    async with app.run_test(size=SIZE, message_hook=posted) as pilot:
        await settle(pilot)
        (loaded,) = posted.of(ConflictsLoaded)
        assert [g.id for g in loaded.result.groups] == [
            g.id for g in demo_engine.curation.conflicts()
        ]
        await keep_second_member(pilot)
        (written,) = posted.of(Written)
        assert written.summary == f"Kept {demo_engine.get(newer).short_id}; others retired"
        reloaded = posted.of(ConflictsLoaded)[-1]
        assert group_id not in [g.id for g in reloaded.result.groups]
