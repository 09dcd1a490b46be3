"""The reference pages inside the app: `f1`, from `?`, and from the palette."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Markdown

from cortex_tui.tui.docs_screen import DocsScreen, DocsViewer
from cortex_tui.tui.help import HelpScreen
from cortex_tui.tui.scenes import settle

from .conftest import AppFactory

pytestmark = pytest.mark.anyio
SIZE = (100, 30)


def shown(app: App[None]) -> str:
    """The page and anchor the viewer is on, e.g. `tui.md#graph`."""
    screen = app.screen
    assert isinstance(screen, DocsScreen)
    return screen.viewer.navigator.location.name


async def test_f1_opens_the_tui_page_at_the_pane_in_front(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", "f1")
        await settle(pilot)
        assert shown(app) == "tui.md#recall"
        viewer = app.screen.query_one(DocsViewer)
        at_recall = viewer.scroll_y
        assert at_recall > 0  # scrolled past the page's opening to the Recall heading
        assert "Terminal UI" in viewer.document.source
        await pilot.press("escape")
        await pilot.press("4", "f1")
        await settle(pilot)
        assert shown(app) == "tui.md#graph"
        assert app.screen.query_one(DocsViewer).scroll_y > at_recall


async def test_links_between_pages_are_followed_and_back_returns(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "f1")
        await settle(pilot)
        viewer = app.screen.query_one(DocsViewer)
        viewer.document.post_message(Markdown.LinkClicked(viewer.document, "configuration.md"))
        await settle(pilot)
        assert shown(app) == "configuration.md"
        assert "hooks.pre_timeout" in viewer.document.source
        await pilot.press("b")
        await settle(pilot)
        assert shown(app) == "tui.md#recall"
        await pilot.press("i")
        await settle(pilot)
        assert shown(app) == "README.md"
        assert "measurements.md" in viewer.document.source


async def test_a_web_link_goes_to_the_browser_and_a_missing_file_is_said(
    make_app: AppFactory,
) -> None:
    app = make_app()
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "f1")
        await settle(pilot)
        viewer = app.screen.query_one(DocsViewer)
        for href in ("https://github.com/Yelp/detect-secrets", "nowhere.md"):
            viewer.document.post_message(Markdown.LinkClicked(viewer.document, href))
            await settle(pilot)
        assert opened == ["https://github.com/Yelp/detect-secrets"]
        assert shown(app) == "tui.md#recall"  # still on the page, nothing broken
        notices = [notification.message for notification in app._notifications]
        assert any("nowhere.md" in notice for notice in notices)


async def test_f1_from_the_keys_help_and_the_palette_open_the_pages(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        await settle(pilot)
        assert shown(app) == "tui.md#recall"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, (DocsScreen, HelpScreen))
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Docs: Configuration", "Docs: Measurements", "Docs: Hooks and agents"} <= set(
            commands
        )
        commands["Docs: Configuration"].callback()
        await settle(pilot)
        assert shown(app) == "configuration.md"


async def test_asked_again_while_open_the_one_screen_turns_the_page(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "f1")
        await settle(pilot)
        screens = len(app.screen_stack)
        await pilot.press("f1")
        await settle(pilot)
        assert len(app.screen_stack) == screens
        assert shown(app) == "tui.md#recall"
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        commands["Docs: Operations"].callback()
        await settle(pilot)
        assert len(app.screen_stack) == screens
        assert shown(app) == "operations.md"
        await pilot.press("b")
        await settle(pilot)
        assert shown(app) == "tui.md#recall"
