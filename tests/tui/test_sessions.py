"""The Sessions pane on a turn archive filled by capturing real turns: sessions newest
first under their days, a session's messages in order and whole, a search that opens a
message in its session, one project at a time, `m` making a memory of what was said
(escape keeping nothing, a failed write keeping the text), the same over the local
service, and what an empty archive says."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static, TextArea

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import ArchivedMessage
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.panes.sessions import TUI_SOURCE, SessionsPane
from cortex_tui.tui.scenes import submit
from cortex_tui.tui.widgets.remember_text import RememberTextModal
from tests.conftest import MODELS_ENV, copy_home
from tests.server.conftest import start_service, stop_service
from tests.tui.archive_seed import (
    ATLAS,
    HARBOR,
    MARROWGLEN,
    PROFILED,
    SCRATCH,
    open_seeded,
    seed_archive,
)
from tests.tui.pane_harness import PaneApp, settle

pytestmark = pytest.mark.anyio

SIZE = (120, 36)


@pytest.fixture(scope="module")
def archive_template(tmp_path_factory: pytest.TempPathFactory, onnx_embedder: Embedder) -> Path:
    home = tmp_path_factory.mktemp("sessions") / "home"
    seed_archive(home, onnx_embedder)
    return home


@pytest.fixture
def archive_home(archive_template: Path, tmp_path: Path) -> Path:
    return copy_home(archive_template, tmp_path / "home")


@pytest.fixture
def archive_engine(archive_home: Path, onnx_embedder: Embedder) -> Iterator[LocalEngine]:
    engine = open_seeded(archive_home, onnx_embedder)
    yield engine
    engine.close()


def _sessions(app: PaneApp) -> OptionList:
    return app.query_one("#sessions-list", OptionList)


def _said(app: PaneApp) -> OptionList:
    return app.query_one("#sessions-said", OptionList)


def _listed(app: PaneApp) -> list[str]:
    """The sessions in the list, top to bottom."""
    ids = (option.id or "" for option in _sessions(app).options)
    return [option_id.removeprefix("s:") for option_id in ids if option_id.startswith("s:")]


def _prompts(listing: OptionList) -> list[str]:
    return [str(option.prompt) for option in listing.options]


def _head(app: PaneApp) -> str:
    return str(app.query_one("#sessions-head", Static).render())


def _message(engine: LocalEngine, session: str, text: str) -> ArchivedMessage:
    return next(m for m in engine.archive.session(session) if m.text == text)


async def _open(app: PaneApp, pilot: Any, session: str) -> None:
    listing = _sessions(app)
    listing.focus()
    listing.highlighted = listing.get_option_index(f"s:{session}")
    await settle(pilot)


async def _highlight(app: PaneApp, pilot: Any, message: ArchivedMessage) -> None:
    said = _said(app)
    said.focus()
    said.highlighted = said.get_option_index(message.id)
    await settle(pilot)


async def test_sessions_come_newest_first_under_the_day_they_last_spoke(
    archive_engine: LocalEngine,
) -> None:
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _listed(app) == [SCRATCH, HARBOR, ATLAS]
        days = [str(o.prompt) for o in _sessions(app).options if o.disabled]
        assert days == ["Sun 2026-05-31", "Sat 2026-05-30"]
        atlas = _prompts(_sessions(app))[-1]
        assert atlas.startswith("atlas  09:00–09:05") and f"2 turns · {ATLAS}" in atlas
        assert "no project  09:30" in _prompts(_sessions(app))[1]
        # The newest session is open, its text as said ([draft] is no markup).
        assert f"session {SCRATCH}" in _head(app)
        assert "The [draft] tag marks notes nobody has reviewed yet." in _prompts(_said(app))[-1]


async def test_a_session_shows_its_messages_in_order_and_whole(
    archive_engine: LocalEngine,
) -> None:
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _open(app, pilot, ATLAS)
        said = _prompts(_said(app))
        firsts = [p.split("\n")[0] for p in said]
        assert firsts == [
            "turn 0 · the user · 2026-05-30 09:00",
            "turn 0 · the assistant · 2026-05-30 09:00",
            "turn 1 · the user · 2026-05-30 09:05",
            "turn 1 · the assistant · 2026-05-30 09:05",
        ]
        assert said[2].split("\n", 1)[1] == MARROWGLEN
        assert said[3].split("\n", 1)[1] == PROFILED  # wrapped on screen, never cut
        head = _head(app)
        assert f"session {ATLAS} · atlas" in head and "2 turns, 4 messages" in head


async def test_a_search_finds_a_message_and_opens_its_session_at_it(
    archive_engine: LocalEngine,
) -> None:
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _listed(app)[0] == SCRATCH  # another session is open
        await submit(pilot, "#sessions-query", "which fixture seeds forty thousand rows")
        hits = _prompts(_said(app))
        assert "Marrowglen fixture" in hits[0]
        assert hits[0].startswith(f"2026-05-30 · {ATLAS[:8]} · atlas · the user")
        assert "nearest “which fixture seeds forty thousand rows”" in _head(app)
        assert app.focused is _said(app)
        await pilot.press("enter")
        await settle(pilot)
        wanted = _message(archive_engine, ATLAS, MARROWGLEN)
        said = _said(app)
        assert said.highlighted_option is not None and said.highlighted_option.id == wanted.id
        assert f"session {ATLAS}" in _head(app)
        sessions = _sessions(app)
        assert sessions.highlighted_option is not None
        assert sessions.highlighted_option.id == f"s:{ATLAS}"
        # r goes back to the hits, and r again to the session.
        await pilot.press("r")
        assert "Marrowglen fixture" in _prompts(_said(app))[0]
        await pilot.press("r")
        assert said.highlighted_option is not None and said.highlighted_option.id == wanted.id


async def test_p_shows_one_project_at_a_time(archive_engine: LocalEngine) -> None:
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        _sessions(app).focus()
        await pilot.press("p")
        await settle(pilot)
        assert _listed(app) == [ATLAS]
        assert "project: atlas (p)" in str(app.query_one("#sessions-summary", Static).render())
        assert f"session {ATLAS}" in _head(app)
        await pilot.press("p")
        await settle(pilot)
        assert _listed(app) == [HARBOR]
        await pilot.press("p")
        await settle(pilot)
        assert _listed(app) == [SCRATCH, HARBOR, ATLAS]


async def test_m_makes_a_memory_of_a_sentence_said(archive_engine: LocalEngine) -> None:
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(app, pilot, ATLAS)
        message = _message(archive_engine, ATLAS, MARROWGLEN)
        await _highlight(app, pilot, message)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, RememberTextModal)
        box = app.screen.query_one(TextArea)
        assert box.text == MARROWGLEN
        kept = "The Marrowglen fixture seeds forty thousand rows before each nightly import."
        box.text = kept
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, RememberTextModal)
        (memory,) = [
            m
            for m in archive_engine.list_memories(MemoryFilter(), limit=100).memories
            if m.content == kept
        ]
        assert (memory.project, memory.source) == ("atlas", TUI_SOURCE)
        assert memory.said_in == [message.id] and memory.session_id is None
        assert [n.message for n in app._notifications] == [f"Remembered as {memory.short_id}"]


async def test_escape_keeps_nothing(archive_engine: LocalEngine) -> None:
    before = archive_engine.list_memories(MemoryFilter(), limit=100).total
    app = PaneApp(SessionsPane(archive_engine))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        _said(app).focus()
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, RememberTextModal)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, RememberTextModal)
    assert archive_engine.list_memories(MemoryFilter(), limit=100).total == before


async def test_a_failed_write_keeps_what_was_typed_and_says_why(
    archive_home: Path, onnx_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_LIMITS__CONTENT_CHARS", "100")
    engine = open_seeded(archive_home, onnx_embedder)
    try:
        before = engine.list_memories(MemoryFilter(), limit=100).total
        app = PaneApp(SessionsPane(engine))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await _open(app, pilot, ATLAS)
            await _highlight(app, pilot, _message(engine, ATLAS, PROFILED))
            await pilot.press("m")
            await settle(pilot)
            typed = PROFILED + " And the fixture can stay as it is."
            app.screen.query_one(TextArea).text = typed
            await pilot.press("ctrl+s")
            await settle(pilot)
            # Open again, with the text as typed and the reason under it.
            assert isinstance(app.screen, RememberTextModal)
            assert app.screen.query_one(TextArea).text == typed
            error = str(app.screen.query_one("#edit-error", Static).render())
            assert "over limits.content_chars (100)" in error
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, RememberTextModal)
        assert engine.list_memories(MemoryFilter(), limit=100).total == before
    finally:
        engine.close()


async def test_an_empty_archive_says_what_fills_it(empty_engine: LocalEngine) -> None:
    app = PaneApp(SessionsPane(empty_engine))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert _listed(app) == []
        head = _head(app)
        assert "Nothing is archived yet" in head
        assert "cortex-tui hook install" in head and "cortex-tui sync" in head
        assert "archive.enabled" in head
        assert not _said(app).display
        _sessions(app).focus()
        await pilot.press("m")
        assert [n.message for n in app._notifications] == [
            "No message highlighted: pick one on the right."
        ]


async def test_the_pane_works_over_the_local_service(archive_home: Path, models_dir: Path) -> None:
    """`cortex-tui` reaches the store through the service: the archive and the write go
    over it, and another client sees the memory made."""
    model = {"CORTEX_EMBEDDER__KIND": "onnx", MODELS_ENV: str(models_dir)}
    process = start_service(archive_home, **model)
    ui_engine = RemoteEngine.over_socket(archive_home)
    observer = RemoteEngine.over_socket(archive_home)
    try:
        app = PaneApp(SessionsPane(ui_engine))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert _listed(app) == [SCRATCH, HARBOR, ATLAS]
            await submit(pilot, "#sessions-query", "which fixture seeds forty thousand rows")
            assert "Marrowglen fixture" in _prompts(_said(app))[0]
            await pilot.press("m")  # on the hit: its sentences
            await settle(pilot)
            kept = "The Marrowglen fixture seeds forty thousand rows before each nightly run."
            app.screen.query_one(TextArea).text = kept
            await pilot.press("ctrl+s")
            await settle(pilot)
        (note,) = [n.message for n in app._notifications]
        short_id = note.removeprefix("Remembered as ")
        made = observer.get(observer.resolve_id(short_id))
        said = next(m for m in observer.archive.session(ATLAS) if m.text == MARROWGLEN)
        assert (made.content, made.project, made.source) == (kept, "atlas", TUI_SOURCE)
        assert made.said_in == [said.id]
    finally:
        ui_engine.close()
        observer.close()
        stop_service(archive_home, process)
