"""The Recall pane on the demo data with the real model: ranking, breakdown, compare,
why-not, live weights and saved profiles, all checked against the engine."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import MemoryDraft
from cortex_tui.tui.panes.base import ExplainMemory, OpenHistory
from cortex_tui.tui.panes.recall import ExplanationReady, OptionsLoaded, RecallDone, RecallPane
from cortex_tui.tui.scenes import DEMO_QUERY, WHY_NOT_ID, settle
from cortex_tui.tui.score_text import formula_total

from .conftest import AppFactory
from .helpers import Posted, ask, plain

SIZE = (120, 36)
pytestmark = pytest.mark.anyio


@pytest.fixture
def onnx_app(make_app: AppFactory, onnx_demo_engine: LocalEngine) -> AppFactory:
    return lambda **kw: make_app(onnx_demo_engine, **kw)


async def test_query_ranks_and_breaks_down_the_score(
    onnx_app: AppFactory, onnx_demo_engine: LocalEngine
) -> None:
    app = onnx_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, DEMO_QUERY)
        pane = app.query_one(RecallPane)
        assert pane.response is not None
        results = pane.response.results
        assert len(results) == 20
        assert "production" in results[0].memory.content.lower()
        table = app.query_one("#recall-results", DataTable)
        assert table.row_count == 20
        for result in results:
            assert formula_total(result.breakdown) == pytest.approx(result.score, abs=1e-6)
        detail = plain(pilot, "#recall-breakdown")
        assert "relevance" in detail and "graph proximity" in detail
        assert "conflict penalty" in detail and "channels" in detail
        assert f"{results[0].score:.4f}" in detail
        await pilot.press("down")
        await settle(pilot)
        assert results[1].memory.short_id in plain(pilot, "#recall-breakdown")
    # TUI queries leave access counts alone.
    top = onnx_demo_engine.get(results[0].memory.id)
    assert top.access_count == results[0].memory.access_count


async def test_the_breakdown_states_coverage_and_a_named_type(onnx_app: AppFactory) -> None:
    app = onnx_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "rules for production deploys")
        pane = app.query_one(RecallPane)
        assert pane.response is not None
        top = pane.response.results[0].breakdown
        detail = plain(pilot, "#recall-breakdown")
        assert "type prior the query names rule" in detail
        assert top.lexical_bm25_scaled is not None and top.lexical_coverage is not None
        assert (
            f"lexical   = BM25 {top.lexical_bm25_scaled:.3f} × coverage {top.lexical_coverage:.3f}"
            in detail
        )


async def test_compare_two_profiles_shows_movement_and_cause(
    onnx_app: AppFactory, onnx_demo_engine: LocalEngine
) -> None:
    weights = onnx_demo_engine.weight_profiles()["default"].model_copy(
        update={"type": 0.0, "recency": 0.5}
    )
    onnx_demo_engine.save_weight_profile("fresh", weights)
    app = onnx_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, DEMO_QUERY)
        await pilot.press("c")
        app.query_one("#recall-profile-b", Select).value = "fresh"
        await settle(pilot)
        pane = app.query_one(RecallPane)
        assert pane.response_b is not None
        labels = [m.label for m in pane.movements]
        assert any(label.startswith(("↑", "↓")) for label in labels)
        moved = next(m for m in pane.movements if m.label.startswith(("↑", "↓")))
        cause = moved.cause()
        assert cause is not None and cause[0] in {"type", "recency"}
        assert app.query_one("#compare-b", DataTable).row_count == len(pane.movements)
        dropped = [m for m in pane.movements if m.label == "dropped"]
        new = [m for m in pane.movements if m.label == "new"]
        assert len(dropped) == len(new)


async def test_why_not_names_what_holds_a_memory_back(onnx_app: AppFactory) -> None:
    app = onnx_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, DEMO_QUERY)
        app.post_message(ExplainMemory(WHY_NOT_ID))
        await settle(pilot)
        pane = app.query_one(RecallPane)
        assert pane.explanation is not None
        assert pane.explanation.rank is not None and pane.explanation.rank > 20
        text = plain(pilot, "#recall-breakdown")
        assert "Held back" in text and "short by" in text


async def test_edited_weights_rerank_live_and_save_as_profile(
    onnx_app: AppFactory, onnx_demo_engine: LocalEngine, tui_home: Path
) -> None:
    app = onnx_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, DEMO_QUERY)
        pane = app.query_one(RecallPane)
        first = [r.memory.id for r in pane.response.results]  # type: ignore[union-attr]
        await pilot.press("escape", "e")
        await settle(pilot)
        app.query_one("#weight-type", Input).value = "0.5"
        await settle(pilot)
        assert pane.weights is not None and pane.weights.type == 0.5
        assert pane.response is not None
        assert pane.response.results[0].breakdown.signals["type"].weight == 0.5
        assert [r.memory.id for r in pane.response.results] != first
        app.query_one("#weights-name", Input).value = "typed"
        app.query_one("#weights-save").press()
        await settle(pilot)
    assert onnx_demo_engine.weight_profiles()["typed"].type == 0.5
    saved = tomllib.loads((tui_home / "config.toml").read_text())
    assert saved["profiles"]["typed"]["type"] == 0.5


async def test_history_key_posts_open_history(onnx_app: AppFactory) -> None:
    posted: list[OpenHistory] = []
    app = onnx_app()

    def hook(message: object) -> None:
        # The hook sees a message at every node it bubbles through: count it once.
        if isinstance(message, OpenHistory) and all(m is not message for m in posted):
            posted.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await ask(pilot, DEMO_QUERY)
        await pilot.press("escape", "h")
        await settle(pilot)
        pane = app.query_one(RecallPane)
        assert pane.response is not None
        assert [m.memory_id for m in posted] == [pane.response.results[0].memory.id]


async def test_memory_text_with_brackets_displays_intact(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    content = "Wrap [bold]flags[/bold] as [link=x]; keep [red] literal"
    demo_engine.remember(MemoryDraft(content=content, tags=["brackets"]))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "Wrap bold flags link red literal")
        pane = app.query_one(RecallPane)
        assert pane.response is not None
        rank = next(r.rank for r in pane.response.results if r.memory.content == content)
        table = app.query_one("#recall-results", DataTable)
        cell = table.get_row_at(rank - 1)[-1]
        assert str(cell).startswith("Wrap [bold]flags[/bold] as [link=x]")
        table.move_cursor(row=rank - 1)
        await settle(pilot)
        assert content in plain(pilot, "#recall-breakdown")


async def test_a_query_and_a_why_not_arrive_as_typed_answers(
    onnx_app: AppFactory, onnx_demo_engine: LocalEngine
) -> None:
    posted = Posted()
    app = onnx_app()
    async with app.run_test(size=SIZE, message_hook=posted) as pilot:
        await ask(pilot, DEMO_QUERY)
        (done,) = posted.of(RecallDone)
        pane = app.query_one(RecallPane)
        assert done.result.a is pane.response and done.result.b is None
        engine_ranking = onnx_demo_engine.recall(pane.request(DEMO_QUERY, "default", None))
        assert [r.memory.id for r in done.result.a.results] == [
            r.memory.id for r in engine_ranking.results
        ]
        assert posted.of(OptionsLoaded)[0].result.profiles.keys() >= {"default"}
        pane.why_not(WHY_NOT_ID)
        await settle(pilot)
        (explained,) = posted.of(ExplanationReady)
        assert explained.result.memory.id.startswith(WHY_NOT_ID)
        assert pane.explanation is explained.result
