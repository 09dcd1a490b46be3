"""How a first run looks: the guide on an empty store, the Health pane beside it, the
app while its engine starts, and an engine that could not be opened.

Update after an intended change with
`pytest tests/tui/test_snapshots_first_run.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from cortex_tui.engine.deferred import DeferredEngine
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import ServiceUnreachableError
from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.scenes import settle, show_pane

SIZE = (120, 36)


@pytest.mark.parametrize("key", ["1", "7", "0"], ids=["recall", "map", "health"])
def test_empty_store(
    key: str, snap_compare: Any, empty_engine: LocalEngine, tui_home: Path
) -> None:
    async def prepare(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await show_pane(pilot, key)

    app = CortexApp(empty_engine, home=tui_home, stable=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=prepare)


def test_starting(snap_compare: Any, empty_engine: LocalEngine, tui_home: Path) -> None:
    """The opening is held until the picture is taken (engine calls wait meanwhile, so
    nothing is settled: the screen's pending messages are waited for instead, twice, as
    the first resize sets the Recall pane's narrow layout, which lays out again)."""
    release = threading.Event()

    def held() -> LocalEngine:
        release.wait(60)
        return empty_engine

    async def prepare(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.pause()
        await pilot.pause(0.05)

    engine = DeferredEngine(held)
    app = CortexApp(
        engine,
        home=tui_home,
        stable=True,
        starting="Starting the local service… the panes fill as soon as it answers.",
    )
    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=prepare)
    finally:
        release.set()


def test_failed(snap_compare: Any, tui_home: Path) -> None:
    def opener() -> LocalEngine:
        raise ServiceUnreachableError(
            "the cortex-tui service did not start: the store at ~/.cortex/store is damaged"
        )

    app = CortexApp(DeferredEngine(opener), home=tui_home, stable=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)
