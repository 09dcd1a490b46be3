"""`DemoApp`: painted before its store exists, usable once it opens; a failed opening
ends the app with the reason."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.deferred import DeferredEngine
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import StoreError
from cortex_tui.tui.demo_app import DemoApp
from cortex_tui.tui.panes.base import Pane
from cortex_tui.tui.registry import PANES
from cortex_tui.tui.scenes import settle

from .conftest import open_demo_engine

pytestmark = pytest.mark.anyio
SIZE = (100, 30)


async def test_the_first_frame_needs_no_store_and_queries_work_once_it_opens(
    tui_home: Path, hashing_embedder: Embedder
) -> None:
    release = threading.Event()

    def opener() -> LocalEngine:
        release.wait()
        return open_demo_engine(tui_home, hashing_embedder)

    engine = DeferredEngine(opener)
    app = DemoApp(engine, tui_home)
    # Should start-up wait for the store, this lets it go on after 10 s (and the test
    # fail below) instead of hanging.
    safety = threading.Timer(10, release.set)
    safety.start()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.1)
            # Ready (the first frame is displayed) came, and with it the other panes,
            # while the store is still being opened.
            assert not release.is_set()
            assert len(app.query(Pane)) == len(PANES)
            release.set()
            await pilot.press("slash", *"postgres version", "enter")
            await settle(pilot)
            assert app.query_one("#recall-results", DataTable).row_count > 0
    finally:
        safety.cancel()
        release.set()
        engine.close()
    assert app.failure is None


async def test_a_failed_opening_ends_the_app_with_the_reason(tui_home: Path) -> None:
    def opener() -> LocalEngine:
        raise StoreError("no room left in /tmp for the demo store")

    app = DemoApp(DeferredEngine(opener), tui_home)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):  # the opening runs on a worker thread after the first frame
            if app.failure is not None:
                break
            await pilot.pause(0.05)
    assert isinstance(app.failure, StoreError)
    assert "no room left" in str(app.failure)
