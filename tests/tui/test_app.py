"""The app shell: pane switching, help, keymap, palette, themes, message routing."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input, TabbedContent

from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.help import HelpScreen
from cortex_tui.tui.panes.base import StoreChanged
from cortex_tui.tui.panes.recall import RecallPane
from cortex_tui.tui.panes.stats import StatsPane
from cortex_tui.tui.registry import PANES
from cortex_tui.tui.scenes import settle

from .conftest import AppFactory, open_demo_engine
from .helpers import ask, plain

pytestmark = pytest.mark.anyio
SIZE = (100, 30)


def _active(app: object) -> str:
    return app.query_one("#panes", TabbedContent).active  # type: ignore[attr-defined,no-any-return]


async def test_number_keys_switch_panes(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _active(app) == "tab-recall"
        await pilot.press("6")  # at start-up focus is not in the query box
        await settle(pilot)
        assert _active(app) == "tab-stats"
        await pilot.press("1")
        await settle(pilot)
        assert _active(app) == "tab-recall"
        assert app.query_one("#recall-query", Input).value == ""


async def test_a_key_pressed_during_start_up_is_not_undone(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")  # before the first tab's own activation has been handled
        await settle(pilot)
        await pilot.pause(0.2)
        assert _active(app) == "tab-conflicts"
        assert app.focused is not None
        assert app.query_one("#conflicts") in app.focused.ancestors


async def test_help_lists_the_current_panes_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = plain(pilot, "#help-body")
        assert "recall.compare" in text and "Compare" in text and "app.help" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_keymap_from_config_remaps_a_binding(make_app: AppFactory, tui_home: Path) -> None:
    (tui_home / "config.toml").write_text('[tui.keymap]\n"recall.compare" = "k"\n')
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "c")
        assert not app.query_one(RecallPane).has_class("-compare")
        await pilot.press("escape", "k")
        assert app.query_one(RecallPane).has_class("-compare")


async def test_palette_offers_every_pane_action_and_theme(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
    for pane in PANES:
        assert f"Go to {pane.title}" in titles
    assert {"Recall: Compare", "Recall: Why not?", "Stats: Timeline span"} <= titles
    assert {"Theme: cortex-night", "Theme: cortex-dawn", "Theme: textual-light"} <= titles


async def test_palette_command_runs_a_pane_action(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = app.get_system_commands(app.screen)
        command = next(c for c in commands if c.title == "Stats: Timeline span")
        command.callback()
        await settle(pilot)
        assert _active(app) == "tab-stats"
        assert app.query_one(StatsPane).days == 90


async def test_theme_choice_is_remembered(make_app: AppFactory, tui_home: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE):
        assert app.theme == "cortex-night"
        app.theme = "cortex-dawn"
    saved = tomllib.loads((tui_home / "config.toml").read_text())
    assert saved["tui"]["theme"] == "cortex-dawn"
    again = make_app()
    async with again.run_test(size=SIZE):
        assert again.theme == "cortex-dawn"


async def test_bad_theme_files_are_skipped_in_one_notification(
    make_app: AppFactory, tui_home: Path
) -> None:
    themes = tui_home / "themes"
    themes.mkdir()
    (themes / "broken.toml").write_text("name = [")
    (themes / "badcolour.toml").write_text(
        'name = "bad"\ndark = true\n[colors]\nprimary = "not-a-colour"\n'
    )
    (themes / "mine.toml").write_text(
        'name = "mine"\ndark = false\n[colors]\nprimary = "#123456"\n'
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = list(app._notifications)
        assert len(notes) == 1
        assert "broken.toml" in notes[0].message and "badcolour.toml" in notes[0].message
        assert "mine" in app.available_themes and "bad" not in app.available_themes


async def test_builtin_themes_get_domain_colours(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "textual-light"
        await settle(pilot)
        assert app.theme_variables["signal-relevance"].startswith("#")
        assert app.theme_variables["penalty-conflict"].startswith("#")


async def test_store_changed_reloads_the_visible_pane(
    make_app: AppFactory, demo_engine: LocalEngine
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "6")
        await settle(pilot)
        assert "116 memories" in plain(pilot, "#stats-summary")
        victim = demo_engine.list_memories(MemoryFilter(), limit=1).memories[0]
        demo_engine.forget(victim.id)
        app.query_one(StatsPane).post_message(StoreChanged())
        await settle(pilot)
        assert "1 deleted" in plain(pilot, "#stats-summary")


async def test_a_damaged_store_is_named_in_a_notice_that_stays(
    make_app: AppFactory, tui_home: Path, hashing_embedder: Embedder
) -> None:
    open_demo_engine(tui_home, hashing_embedder).close()
    (segment,) = (tui_home / "store" / "memories" / "segments").iterdir()
    with (segment / "payload_storage" / "page_0.dat").open("r+b") as page:
        page.write(bytes(range(256)) * 80)
    engine = open_engine(load_settings(tui_home), embedder=hashing_embedder)
    try:
        app = make_app(engine)
        async with app.run_test(size=SIZE) as pilot:
            await ask(pilot, "which database does atlas use")
            (note,) = [n for n in app._notifications if n.title == "store damaged"]
            assert "cortex-tui repair" in note.message and "restore-backup" in note.message
            assert note.timeout >= 600
    finally:
        engine.close()
