"""The History pane and the word diff: chains newest first, restore really versions."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, OptionList

from cortex_tui.demo.loader import demo_id
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import MemoryDraft, WriteAction
from cortex_tui.tui.panes.base import Written
from cortex_tui.tui.panes.history import (
    ChainLoaded,
    HeadsLoaded,
    HistoryPane,
    Restored,
    chain_heads,
)
from cortex_tui.tui.panes.memories import MemoriesPane
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.word_diff import word_diff
from tests.tui.conftest import AppFactory
from tests.tui.helpers import Posted
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (110, 32)
RATE_LIMIT = [demo_id("m018"), demo_id("m019"), demo_id("m020")]


def test_word_diff_marks_changed_words_only() -> None:
    diff = word_diff("The limit is 60 requests", "The limit is now 100 requests")
    assert diff.content.plain == "The limit is 60 now 100 requests"
    styled = {
        diff.content.plain[s.start : s.end]: s.style
        for s in diff.content.spans
        if s.style in ("strike", "bold")
    }
    assert styled == {"60": "strike", "now 100": "bold"}
    assert (diff.added, diff.removed) == (2, 1)


def test_word_diff_keeps_markup_like_text() -> None:
    diff = word_diff("grep '[harbor]'", "grep '[harbor] [ingest]'")
    assert "[harbor]" in diff.content.plain and "[ingest]'" in diff.content.plain


def test_word_diff_of_equal_texts_marks_nothing() -> None:
    diff = word_diff("same  text\nhere", "same  text\nhere")
    assert diff.content.plain == "same  text\nhere"
    assert (diff.added, diff.removed, diff.content.spans) == (0, 0, [])


def test_chain_heads_are_the_changed_facts_newest_first(demo_engine: LocalEngine) -> None:
    heads = chain_heads(demo_engine)
    assert heads and all(h.supersedes_id and h.is_current for h in heads)
    assert [h.valid_from for h in heads] == sorted((h.valid_from for h in heads), reverse=True)
    assert heads[0].id == RATE_LIMIT[-1]


async def test_first_chain_is_shown_newest_version_first(demo_engine: LocalEngine) -> None:
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        versions = app.query_one("#history-versions", OptionList)
        assert [o.id for o in versions.options] == RATE_LIMIT[::-1]
        newest = str(versions.options[0].prompt)
        assert "v3" in newest and "→ now" in newest and "current" in newest


async def test_show_chain_from_any_version(demo_engine: LocalEngine) -> None:
    pane = HistoryPane(demo_engine)
    app = PaneApp(pane)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane.show_chain(demo_id("m011"))
        await settle(pilot)
        versions = app.query_one("#history-versions", OptionList)
        chain = [demo_id("m013"), demo_id("m012"), demo_id("m011")]
        assert [o.id for o in versions.options] == chain
        chains = app.query_one("#history-chains", OptionList)
        assert chains.highlighted_option is not None
        assert chains.highlighted_option.id == demo_id("m013")


async def test_restore_creates_a_new_current_version(demo_engine: LocalEngine) -> None:
    oldest = demo_engine.get(RATE_LIMIT[0])
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#history-versions", OptionList).focus()
        await pilot.press("end", "r")
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        chain = demo_engine.history(RATE_LIMIT[0])
        assert len(chain) == 4
        restored = chain[-1]
        assert restored.id not in RATE_LIMIT and restored.is_current
        assert restored.content == oldest.content
        assert restored.supersedes_id == RATE_LIMIT[-1]
        assert demo_engine.get(RATE_LIMIT[-1]).valid_to is not None
        assert demo_engine.get(RATE_LIMIT[0]).valid_to == oldest.valid_to  # past unchanged
        versions = app.query_one("#history-versions", OptionList)
        assert versions.options[0].id == restored.id


async def test_restore_of_the_current_version_is_refused(demo_engine: LocalEngine) -> None:
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#history-versions", OptionList).focus()
        await pilot.press("r")
        assert not isinstance(app.screen, ConfirmModal)
        assert len(demo_engine.history(RATE_LIMIT[0])) == 3


async def test_undo_reverts_a_restore(demo_engine: LocalEngine) -> None:
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#history-versions", OptionList).focus()
        await pilot.press("end", "r", "y")
        await settle(pilot)
        assert not demo_engine.get(RATE_LIMIT[-1]).is_current
        await pilot.press("u")
        await settle(pilot)
        assert demo_engine.get(RATE_LIMIT[-1]).is_current


async def test_a_new_edit_appears_as_a_changed_fact(demo_engine: LocalEngine) -> None:
    written = demo_engine.remember(MemoryDraft(content="Deploys use [blue/green] switches."))
    updated = demo_engine.update(written.memory.id, content="Deploys use [canary] releases.")
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chains = app.query_one("#history-chains", OptionList)
        assert chains.options[0].id == updated.id
        versions = app.query_one("#history-versions", OptionList)
        assert "[canary]" in str(versions.options[0].prompt)
        assert "[blue/green]" in str(versions.options[0].prompt)


async def test_history_opens_from_another_pane_in_the_app(
    demo_engine: LocalEngine, make_app: AppFactory
) -> None:
    """Memories pane, `h` on a memory: the app switches to History on that chain."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_show_pane("memories")
        await settle(pilot)
        memories = app.query_one(MemoriesPane)
        table = memories.query_one(DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index(demo_id("m013")))
        await settle(pilot)  # the focus reaches the table's tab before `h` leaves it
        await pilot.press("h")
        await settle(pilot)
        assert app.current_pane.pane_id == "history"
        versions = app.query_one("#history-versions", OptionList)
        assert [o.id for o in versions.options] == [demo_id(f"m01{n}") for n in (3, 2, 1)]


def test_a_rewrite_is_shown_plain_not_as_a_word_soup() -> None:
    old = "The shared Postgres cluster runs PostgreSQL 14.10 on RDS."
    new = "pg-main was upgraded to 15.6 on 2026-03-21; extensions had to be re-enabled."
    diff = word_diff(old, new)
    assert diff.rewritten and diff.content.plain == new and diff.content.spans == []
    assert not word_diff(old, old.replace("14.10", "14.11")).rewritten


async def test_a_supersession_shows_its_reason_and_undo_names_it(
    onnx_demo_engine: LocalEngine,
) -> None:
    engine = onnx_demo_engine
    engine.remember(MemoryDraft(content="The billing service is written in Ruby.", project="pay"))
    new = engine.remember(
        MemoryDraft(content="The billing service is now written in Go.", project="pay")
    )
    assert new.action is WriteAction.SUPERSEDED, new.reason
    app = PaneApp(HistoryPane(engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        versions = app.query_one("#history-versions", OptionList)
        newest = str(versions.options[0].prompt)
        assert f"why superseded: {new.reason}" in " ".join(newest.split())
        app.query_one("#history-versions", OptionList).focus()
        await pilot.press("u")
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert f"Undid capture:supersede (superseded: {new.reason})" in said


async def test_chains_and_a_restore_arrive_as_typed_answers(demo_engine: LocalEngine) -> None:
    posted = Posted()
    app = PaneApp(HistoryPane(demo_engine))
    async with app.run_test(size=SIZE, message_hook=posted) as pilot:
        await settle(pilot)
        (heads,) = posted.of(HeadsLoaded)
        assert [m.id for m in heads.result.heads] == [m.id for m in chain_heads(demo_engine)]
        chain = posted.of(ChainLoaded)[-1]
        assert [m.id for m in chain.result.versions] == RATE_LIMIT
        app.query_one("#history-versions", OptionList).focus()
        await pilot.press("end", "r", "y")
        await settle(pilot)
        (restored,) = posted.of(Restored)
        assert restored.result.is_current
        assert restored.result.supersedes_id == RATE_LIMIT[-1]
        assert [w.summary for w in posted.of(Written)] == [
            f"Restored as {restored.result.short_id}"
        ]
