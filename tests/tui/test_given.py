"""The Given pane on the demo's recorded turns: sessions newest first, what each prompt
was given, a memory's score then and now, and the keys that act on it."""

from __future__ import annotations

import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable, OptionList, Static

from cortex_tui.engine.local import LocalEngine
from cortex_tui.given.record import Asker, Given, build_record
from cortex_tui.models import MemoryDraft, MemoryType
from cortex_tui.recall.gate import Floors
from cortex_tui.recall.request import RecallRequest
from cortex_tui.tui.panes.base import OpenHistory
from cortex_tui.tui.panes.given import GivenPane
from cortex_tui.tui.widgets.confirm import ConfirmModal
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (130, 40)


def _options(app: PaneApp) -> list[str]:
    return [str(option.prompt) for option in app.query_one("#given-list", OptionList).options]


def _given(app: PaneApp) -> DataTable[object]:
    return app.query_one("#given-memories", DataTable)


def _why(app: PaneApp) -> str:
    return str(app.query_one("#given-why", Static).render())


async def _choose_first_prompt(app: PaneApp, pilot: object) -> None:
    listing = app.query_one("#given-list", OptionList)
    listing.highlighted = max(i for i, o in enumerate(listing.options) if not o.disabled)
    await settle(pilot)  # type: ignore[arg-type]


async def test_sessions_come_newest_first_with_their_prompts(demo_engine: LocalEngine) -> None:
    app = PaneApp(GivenPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = _options(app)
        headings = [line for line in shown if "turn" in line.split("\n")[0] and "·" in line]
        assert [h.split()[0] for h in headings] == ["mcp", "openclaw", "claude"]
        assert "harbor consumer lag is cli…" in "\n".join(shown)
        # The newest turn is open: the MCP recall, every result given, nothing left out.
        assert "who leads atlas" in str(app.query_one("#given-head", Static).render())
        assert _given(app).row_count == 10


async def test_a_prompt_shows_its_standing_rules_and_recall_and_the_score_then_and_now(
    demo_engine: LocalEngine,
) -> None:
    app = PaneApp(GivenPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _choose_first_prompt(app, pilot)
        turn = demo_engine.given.records(session="7c1f")[-1]
        table = _given(app)
        places = [str(table.get_cell_at(Coordinate(row, 1))) for row in range(table.row_count)]
        standing = [m for m in turn.given if m.block == "standing"]
        assert places[: len(standing)] == ["std"] * len(standing)
        assert places[len(standing)] == "1"
        assert "A standing rule" in _why(app)
        table.focus()
        table.move_cursor(row=len(standing))
        await settle(pilot)
        why = _why(app)
        top = next(m for m in turn.given if m.rank == 1)
        assert top.breakdown is not None
        assert f"{top.breakdown.final:.4f}" in why and "rank  #1 then, now #1" in why


async def test_useful_and_wrong_judgements_are_kept_and_taken_back(
    demo_engine: LocalEngine,
) -> None:
    app = PaneApp(GivenPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = _given(app)
        table.focus()
        await pilot.press("y")
        await settle(pilot)
        newest = demo_engine.given.records(limit=1)[0]
        first = newest.given[0]
        assert newest.judged == {first.id: "useful"}
        assert str(_given(app).get_cell_at(Coordinate(0, 0))) == "✓"
        await pilot.press("down", "w")
        await settle(pilot)
        second = newest.given[1]
        assert not demo_engine.get(second.id).is_current, "a wrong memory is lowered"
        await pilot.press("u")
        await settle(pilot)
        assert demo_engine.get(second.id).is_current, "u takes the judgement back"
        assert demo_engine.given.records(limit=1)[0].judged == {first.id: "useful"}


async def test_forget_asks_first_and_the_filter_lists_what_is_given_for_nothing(
    demo_engine: LocalEngine,
) -> None:
    app = PaneApp(GivenPane(demo_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        often = demo_engine.given.unhelpful_memories(min_given=3)
        assert _given(app).row_count == len(often)
        assert "never judged useful" in str(_given(app).border_title)
        await pilot.press("f")
        await settle(pilot)
        _given(app).focus()
        target = demo_engine.given.records(limit=1)[0].given[0]
        await pilot.press("h")
        await settle(pilot)
        assert [m.memory_id for m in app.routed if isinstance(m, OpenHistory)] == [target.id]
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmModal)
        await pilot.press("enter")
        await settle(pilot)
        assert demo_engine.get(target.id).status.value == "deleted"


async def test_a_prompt_nothing_bore_on_shows_what_was_held_back_and_why(
    engine: LocalEngine,
) -> None:
    for fact in ("The atlas API listens on port 8443.", "Priya Raman leads the atlas team."):
        engine.remember(MemoryDraft(content=fact, type=MemoryType.FACT))
    query = "write a limerick about a cat who loves coffee"
    floor = Floors.of(None, None).floor
    response = engine.recall(RecallRequest(query=query, min_relevance=floor, update_access=False))
    given = Given(response.context, recalled=response.results, held_back=response.held_back)
    asker = Asker(agent="claude", trigger="prompt", session="s-cat", query=query)
    engine.given.record(build_record(asker, engine.now(), given, 2000))
    app = PaneApp(GivenPane(engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        head = str(app.query_one("#given-head", Static).render())
        assert "nothing given: nothing bore on it" in head
        table = _given(app)
        assert table.row_count == 2
        assert {str(table.get_cell_at(Coordinate(row, 4))) for row in range(2)} == {"held back"}
        table.focus()
        table.move_cursor(row=0)
        await settle(pilot)
        why = _why(app)
        assert "Held back by the relevance gate" in why and "nothing bore on the prompt" in why
