"""How the Sessions pane looks, in the app, on a turn archive of captured turns: a
session of two turns open at a message, at the smallest terminal people use and a large
one. Frozen clock, fixed data (the archive's own dates), no timings.

Update after an intended change with
`pytest tests/tui/test_snapshots_sessions.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.tui.scenes import settle, show_pane
from cortex_tui.tui.screenshots import demo_app
from tests.conftest import copy_home
from tests.tui.archive_seed import ATLAS, MARROWGLEN, open_seeded, seed_archive


@pytest.fixture(scope="module")
def archive_template(tmp_path_factory: pytest.TempPathFactory, onnx_embedder: Embedder) -> Path:
    home = tmp_path_factory.mktemp("sessions-snapshots") / "home"
    seed_archive(home, onnx_embedder)
    return home


@pytest.fixture
def archive_engine(
    archive_template: Path, tmp_path: Path, onnx_embedder: Embedder
) -> Iterator[LocalEngine]:
    engine = open_seeded(copy_home(archive_template, tmp_path / "home"), onnx_embedder)
    yield engine
    engine.close()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_a_session_open_at_a_message(
    size: tuple[int, int], snap_compare: Any, archive_engine: LocalEngine, tui_home: Path
) -> None:
    wanted = next(m for m in archive_engine.archive.session(ATLAS) if m.text == MARROWGLEN)

    async def prepare(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.pause(0.1)
        await show_pane(pilot, "S")
        sessions = pilot.app.query_one("#sessions-list", OptionList)
        sessions.highlighted = sessions.get_option_index(f"s:{ATLAS}")
        await settle(pilot)
        said = pilot.app.query_one("#sessions-said", OptionList)
        said.focus()
        said.highlighted = said.get_option_index(wanted.id)
        await settle(pilot)

    app = demo_app(archive_engine, tui_home)
    assert snap_compare(app, terminal_size=size, run_before=prepare)
