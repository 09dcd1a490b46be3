"""The app over the local service: the same panes, driven through `RemoteEngine`.

`cortex-tui` opens the user's store through the service by default, so the panes must
work when every engine call is an HTTP request to another process. The demo data is
loaded into the home first, then a real `cortex-tui serve` owns the store; every check
on the store goes through a second client, as another process would see it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, TabbedContent

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import ConflictStatus
from cortex_tui.tui.app import CortexApp
from cortex_tui.tui.scenes import settle
from tests.server.conftest import start_service, stop_service
from tests.tui.conftest import open_demo_engine
from tests.tui.helpers import keep_second_member

pytestmark = pytest.mark.anyio
SIZE = (120, 36)


@pytest.fixture
def served_demo(tui_home: Path, hashing_embedder: Embedder) -> Iterator[Path]:
    open_demo_engine(tui_home, hashing_embedder).close()
    process = start_service(tui_home)
    yield tui_home
    stop_service(tui_home, process)


async def test_recall_and_conflict_resolution_through_the_service(served_demo: Path) -> None:
    ui_engine = RemoteEngine.over_socket(served_demo)
    observer = RemoteEngine.over_socket(served_demo)
    try:
        group = observer.curation.conflicts()[0]
        older, newer = (member.id for member in group.members)
        app = CortexApp(ui_engine, home=served_demo, stable=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            query = app.query_one("#recall-query", Input)
            query.focus()
            query.value = "how do we deploy to production"
            await pilot.press("enter")
            await settle(pilot)
            assert app.query_one("#recall-results", DataTable).row_count > 0

            await pilot.press("escape", "2")
            await settle(pilot)
            assert app.query_one("#panes", TabbedContent).active == "tab-conflicts"
            await keep_second_member(pilot)
            kept, retired = observer.get(newer), observer.get(older)
            assert kept.conflict_status is ConflictStatus.RESOLVED
            assert retired.superseded_by_id == newer and retired.valid_to is not None

            await pilot.press("u")
            await settle(pilot)
            assert group.id in [g.id for g in observer.curation.conflicts()]
            assert observer.get(older).valid_to is None
    finally:
        ui_engine.close()
        observer.close()
