"""The Map, Words, Timeline and Health panes, driven like a person would, in the whole app.

Select a point, a word, a day; see what each leads to (a version history, a recall, a
day's memories); and see the health concerns appear when the service is down or the
spool is stuck.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, OptionList

from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.panes.map import MapPane
from cortex_tui.tui.panes.recall import RecallPane
from cortex_tui.tui.scenes import show_pane
from cortex_tui.tui.widgets.day_heatmap import DayHeatmap
from cortex_tui.tui.widgets.map_canvas import MapCanvas
from cortex_tui.tui.widgets.word_cloud import WordCloudView
from tests.conftest import spool_waiting_turn
from tests.tui.conftest import AppFactory
from tests.tui.helpers import plain
from tests.tui.pane_harness import settle

pytestmark = pytest.mark.anyio

SIZE = (120, 36)
QUERY = "how do we deploy to production"


async def _on_pane(pilot: Pilot[None], key: str) -> None:
    """Once the app has started, show the pane of `key` with its data."""
    await settle(pilot)
    await show_pane(pilot, key)


def _versions(app: App[None]) -> list[str | None]:
    """The ids the History pane lists as versions of the chain it shows."""
    listing = app.query_one("#history-versions", OptionList)
    return [option.id for option in listing.options]


async def test_a_point_under_the_cursor_is_shown_and_opens_its_history(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "7")
        canvas = app.query_one(MapCanvas)
        drawn = demo_engine.overview.memory_map()
        assert canvas.selected in drawn.ids
        first = canvas.selected
        for _ in range(12):
            await pilot.press("left")
            if canvas.selected != first:
                break
        await settle(pilot)
        chosen = canvas.selected
        assert chosen is not None and chosen != first
        assert demo_engine.get(chosen).short_id in plain(pilot, "#map-memory")
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_pane.pane_id == "history"
        assert chosen in _versions(app)


async def test_a_click_picks_the_nearest_point(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "7")
        canvas = app.query_one(MapCanvas)
        before = canvas.selected
        await pilot.click(MapCanvas, offset=(3, 3))
        await settle(pilot)
        assert canvas.cursor == (2, 2)  # inside the border
        assert canvas.selected is not None and canvas.selected != before


async def test_a_query_numbers_its_results_on_the_map(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "7")
        await pilot.press("slash", *QUERY, "enter")
        await settle(pilot)
        placed = demo_engine.overview.memory_map(query=QUERY)
        first = demo_engine.get(placed.hits[0].id)
        listed = plain(pilot, "#map-hits")
        assert listed.splitlines()[0].split()[0] == "1"
        assert first.content[:20] in listed.replace("\n", " ")
        # The cursor starts on the first result, so it is the memory shown.
        assert app.query_one(MapCanvas).selected == first.id
        drawn = str(app.query_one(MapCanvas).render())
        assert "◆" in drawn  # the query; its results' ranks, where it does not cover them
        assert sum(str(rank) in drawn for rank in range(1, 10)) >= 5
        await pilot.press("c")  # colour by project: the legend follows
        assert "Colour by project" in str(app.query_one("#map-legend").border_title)
        await pilot.press("escape")
        await settle(pilot)
        assert plain(pilot, "#map-hits").startswith("type a query")
        assert app.query_one(MapPane).asked == ""


async def test_superseded_versions_appear_on_the_map_when_asked(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "7")
        current = demo_engine.overview.memory_map().total
        assert f"{current} memories" in str(app.query_one(MapCanvas).border_title)
        await pilot.press("s")
        await settle(pilot)
        everything = demo_engine.overview.memory_map(superseded=True).total
        assert everything > current
        assert f"{everything} memories" in str(app.query_one(MapCanvas).border_title)


async def test_a_picked_word_is_recalled(make_app: AppFactory, demo_engine: LocalEngine) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "8")
        cloud = app.query_one(WordCloudView)
        top = demo_engine.overview.word_cloud(limit=3).terms
        assert cloud.selected == top[0]
        await pilot.press("right")
        assert cloud.selected == top[1]
        assert top[1].term in plain(pilot, "#words-term")
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_pane.pane_id == "recall"
        assert app.query_one("#recall-query", Input).value == top[1].term
        recall = app.query_one(RecallPane)
        assert recall.response is not None and recall.response.query == top[1].term


async def test_words_follow_the_project_and_type_filters(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "8")
        await pilot.press("p")
        await settle(pilot)
        first_project = sorted(demo_engine.overview.stats().by_project)[0]
        assert f"project: {first_project}" in plain(pilot, "#words-status")
        expected = demo_engine.overview.word_cloud(project=first_project, limit=1).terms[0]
        assert app.query_one(WordCloudView).selected == expected
        await pilot.press("y")
        await settle(pilot)
        assert "type: rule" in plain(pilot, "#words-status")


async def test_a_chosen_day_lists_its_memories(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "9")
        heatmap = app.query_one(DayHeatmap)
        days = demo_engine.overview.timeline(90).days
        latest = [d for d in days if d.created][-1]
        assert heatmap.selected == latest  # the latest day with something to show
        table = app.query_one("#timeline-memories", DataTable)
        assert table.row_count == latest.created + latest.superseded
        busiest = max(days, key=lambda d: (d.created + d.superseded, d.day))
        steps = days.index(latest) - days.index(busiest)
        for _ in range(steps // 7):
            await pilot.press("left")
        for _ in range(steps % 7):
            await pilot.press("up")
        await settle(pilot)
        assert heatmap.selected == busiest
        listed = demo_engine.overview.day(date.fromisoformat(busiest.day))
        assert table.row_count == len(listed.created) + len(listed.superseded)
        assert busiest.day in plain(pilot, "#timeline-day")
        table.focus()
        # Focus tells the table's tab it is active, a message at a time; were it still on
        # its way when enter opens the History pane, it would take the Days tab back.
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_pane.pane_id == "history"


async def test_the_span_and_the_shading_change_with_their_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "9")
        assert "Last 90 days" in plain(pilot, "#timeline-status")
        await pilot.press("t")
        await settle(pilot)
        assert "Last 365 days" in plain(pilot, "#timeline-status")
        await pilot.press("m")
        assert "Superseded per day" in str(app.query_one(DayHeatmap).border_title)


async def test_health_says_the_service_is_down_and_how_to_start_it(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "0")
        assert "not running" in plain(pilot, "#health-vitals")
        concerns = plain(pilot, "#health-concerns")
        assert "the service is not running" in concerns and "cortex-tui serve" in concerns


async def test_health_says_the_spool_is_stuck_and_what_to_do(
    make_app: AppFactory, tui_home: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await _on_pane(pilot, "0")
        assert "captures waiting" not in plain(pilot, "#health-concerns")
        spool_waiting_turn(tui_home, 7200)
        await pilot.press("r")
        await settle(pilot)
        vitals = plain(pilot, "#health-vitals")
        assert "1 waiting, the oldest for 2 h 0 min" in vitals
        concerns = plain(pilot, "#health-concerns")
        assert "1 captures waiting" in concerns and "serve --status" in concerns
