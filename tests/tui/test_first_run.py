"""A first run: the empty store's guide in every pane, the engine still opening, and an
engine that cannot be opened — on a real store, through the app's Pilot."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.deferred import DeferredEngine
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import ServiceUnreachableError
from cortex_tui.models import MemoryDraft
from cortex_tui.overview.models import HookFigures, Vitals
from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.panes.recall import RecallPane
from cortex_tui.tui.registry import PANES
from cortex_tui.tui.scenes import settle, show_pane
from cortex_tui.tui.store_state import StoreState
from cortex_tui.tui.widgets.first_run import FirstRunGuide, commands, on_its_way
from cortex_tui.tui.widgets.startup import StartFailed, StartingNotice
from tests.conftest import spool_waiting_turn

from .helpers import ask, plain

pytestmark = pytest.mark.anyio
SIZE = (120, 36)


def _top_result(app: CortexApp) -> str:
    response = app.query_one(RecallPane).response
    assert response is not None and response.results
    return response.results[0].memory.content


def _guide_in(app: CortexApp, pane_id: str) -> FirstRunGuide | None:
    guides = app.query_one(f"#tab-{pane_id}").query(FirstRunGuide)
    return next(iter(guides), None)


async def test_every_pane_but_health_shows_the_guide_on_an_empty_store(
    empty_engine: LocalEngine, tui_home: Path
) -> None:
    app = CortexApp(empty_engine, home=tui_home, stable=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.store_state is StoreState.EMPTY
        for entry in PANES:
            await show_pane(pilot, entry.key)
            pane = app.pane(entry.pane_id)
            assert pane is not None
            guide = _guide_in(app, entry.pane_id)
            if entry.pane_id == "health":  # it has its own word on an empty store
                assert guide is None and pane.display
                continue
            assert guide is not None and not pane.display
            assert pane.purpose in plain(pilot, f"#tab-{entry.pane_id} #first-run-pane")
            # The guide's list has the keys, so enter copies at once.
            assert app.focused is guide.query_one(OptionList)


async def test_enter_copies_the_highlighted_command(
    empty_engine: LocalEngine, tui_home: Path
) -> None:
    app = CortexApp(empty_engine, home=tui_home, stable=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        assert app.clipboard == "cortex-tui mcp install"
        await pilot.press("c")  # the other key for it, on the same line
        assert app.clipboard == "cortex-tui mcp install"
        assert any(n.message == "cortex-tui mcp install" for n in app._notifications)


async def test_the_guide_gives_way_once_the_first_memory_arrives(
    empty_engine: LocalEngine, tui_home: Path
) -> None:
    """Written from elsewhere (the agent's hooks through the service): nobody tells the
    app, which asks the empty store again every few seconds."""
    app = CortexApp(empty_engine, home=tui_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _guide_in(app, "recall") is not None
        empty_engine.remember(MemoryDraft(content="We deploy atlas with make release."))
        for _ in range(100):
            await pilot.pause(0.1)
            if app.store_state is StoreState.READY:
                break
        await settle(pilot)
        assert app.store_state is StoreState.READY
        assert not app.query(FirstRunGuide)
        assert all(pane.display for pane in app.panes)
        await ask(pilot, "how do we deploy atlas")
        assert "make release" in _top_result(app)


async def test_the_guide_says_what_is_on_its_way(empty_engine: LocalEngine, tui_home: Path) -> None:
    spool_waiting_turn(tui_home, 5)
    app = CortexApp(empty_engine, home=tui_home, stable=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "1 captured turn waits in the spool" in plain(pilot, "#first-run-status")


def _vitals(spooled: int = 0, runs: int = 0) -> Vitals:
    hooks = [
        HookFigures(kind="pre", runs=runs, failures=0),
        HookFigures(kind="post", runs=0, failures=0),
    ]
    return Vitals(
        store="/s",
        store_bytes=0,
        memories=0,
        spool_pending=spooled,
        hooks=hooks,
        embedder="hashing",
        llm="none",
    )


def test_what_is_on_its_way_follows_the_vitals() -> None:
    assert "3 captured turns wait" in on_its_way(_vitals(spooled=3))
    assert "ran 4 times in the last day" in on_its_way(_vitals(runs=4))
    assert "No hook has run" in on_its_way(_vitals())
    assert on_its_way(None) == ""


def test_commands_carry_a_home_only_when_it_is_not_the_one_found_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path / "mine"))
    own = dict(commands(tmp_path / "mine"))
    assert "cortex-tui hook install" in own and "cortex-tui --demo" in own
    other = [command for command, _ in commands(tmp_path / "other dir")]
    assert f"cortex-tui --home '{tmp_path / 'other dir'}' hook install" in other
    assert "cortex-tui --demo" in other  # the demo never needs one


def _held_opening(opener: Callable[[], LocalEngine]) -> tuple[DeferredEngine, threading.Event]:
    release = threading.Event()

    def held() -> LocalEngine:
        release.wait(30)
        return opener()

    return DeferredEngine(held), release


async def test_panes_are_usable_while_the_engine_starts_and_fill_once_it_answers(
    tui_home: Path, hashing_embedder: Embedder
) -> None:
    from .conftest import open_demo_engine

    engine, release = _held_opening(lambda: open_demo_engine(tui_home, hashing_embedder))
    app = CortexApp(engine, home=tui_home, starting="Starting the local service…")
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.1)
            assert app.store_state is StoreState.STARTING
            assert "Starting the local service" in str(app.query_one(StartingNotice).visual)
            # A query typed while it starts runs once the engine is there.
            await pilot.press("slash", *"which postgres version", "enter")
            release.set()
            await settle(pilot)
            assert app.store_state is StoreState.READY
            assert not app.query(StartingNotice)
            assert "PostgreSQL" in _top_result(app)
    finally:
        release.set()
        engine.close()


async def test_an_engine_that_cannot_open_covers_every_pane_with_the_reason(
    tui_home: Path,
) -> None:
    reason = "the cortex-tui service did not start: the store is damaged"

    def opener() -> LocalEngine:
        raise ServiceUnreachableError(reason)

    app = CortexApp(DeferredEngine(opener), home=tui_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.store_state is StoreState.FAILED
        assert isinstance(app.failure, ServiceUnreachableError)
        assert not app.query(StartingNotice)
        for entry in PANES:
            tab = app.query_one(f"#tab-{entry.pane_id}")
            (cover,) = tab.query(StartFailed)
            assert reason in str(cover.query_one("#start-failed-reason", Static).visual)
        ways = " ".join(str(way.visual) for way in app.query(".way-out").results(Static))
        assert "cortex-tui --no-daemon" in ways and "service.log" in ways
