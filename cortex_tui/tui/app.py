"""`CortexApp`: one tab per pane over an `Engine`, with palette, help, themes and keymap.

The app knows panes only through `registry.PANES` and the `Pane` contract (it imports
the pane modules after its first frame, and mounts the one shown first); it routes the
cross-pane messages (`OpenHistory`, `ExplainMemory`, `AskRecall`, `StoreChanged`) and
owns what is app-wide: themes (files from `themes/`, the choice remembered in
config.toml), the keymap from `[tui.keymap]`, the command palette and the `?` help
screen. It receives an `Engine` and never assumes which implementation it is.

It also owns the store's state as a whole (`StoreState`): an engine still opening
(a `DeferredEngine`: the service starting) puts a line above every pane; one that could
not be opened covers every pane with the reason and the ways out; an empty store covers
each pane with the first-run guide, which gives way once the first memory arrives.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Header, TabbedContent, TabPane
from textual.worker import get_current_worker

from cortex_tui.docs import pages as docs_pages
from cortex_tui.engine.deferred import DeferredEngine, OpeningAbandoned
from cortex_tui.errors import CortexError
from cortex_tui.tui.colours import DOMAIN_DEFAULTS
from cortex_tui.tui.help import (
    HelpScreen,
    HelpSection,
    bindings_of,
    effective_keys,
    help_content,
)
from cortex_tui.tui.panes.base import AskRecall, ExplainMemory, OpenHistory, Pane, StoreChanged
from cortex_tui.tui.preferences import load_preferences, remember_theme
from cortex_tui.tui.registry import PANES
from cortex_tui.tui.store_state import StoreState, state_of
from cortex_tui.tui.themes import load_themes, theme_dirs
from cortex_tui.tui.widgets.first_run import FirstRunGuide
from cortex_tui.tui.widgets.startup import StartFailed, StartingNotice

if TYPE_CHECKING:
    from cortex_tui.engine.protocol import Engine
    from cortex_tui.overview.models import Vitals

DEFAULT_THEME = "cortex-night"
FALLBACK_THEME = "textual-dark"
EMPTY_RECHECK_SECONDS = 2.0
"""How often an empty store is asked again: the agent's hooks fill it from elsewhere."""


@runtime_checkable
class ShowsChain(Protocol):
    """A pane that can show the version chain of one memory (the History pane)."""

    def show_chain(self, memory_id: str) -> None: ...


@runtime_checkable
class ExplainsMemories(Protocol):
    """A pane that answers "why not?" for a memory id (the Recall pane)."""

    def why_not(self, memory_id: str) -> None: ...


@runtime_checkable
class AsksRecall(Protocol):
    """A pane that ranks a query given to it (the Recall pane)."""

    def ask(self, query: str) -> None: ...


def _tab_id(pane_id: str) -> str:
    return f"tab-{pane_id}"


class CortexApp(App[None]):
    """The terminal UI over one engine.

    `demo` only changes the subtitle; `home` is where config.toml (theme, keymap) lives;
    `stable=True` hides what differs from run to run (elapsed times, the store's
    location), for screenshots and snapshot tests. `starting` is the line shown while
    a `DeferredEngine` opens (what is being waited for).
    """

    TITLE = "cortex-tui"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("f1", "docs", "Docs", show=False, id="app.docs"),
        Binding("ctrl+t", "next_theme", "Theme", show=False, id="app.next_theme"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit"),
        *(
            Binding(
                pane.key,
                f"show_pane('{pane.pane_id}')",
                pane.title,
                show=False,
                id=f"app.pane.{pane.pane_id}",
            )
            for pane in PANES
        ),
    ]

    CSS = """
    TabbedContent { height: 1fr; }
    TabbedContent > ContentSwitcher { height: 1fr; }
    TabPane { padding: 0; height: 1fr; }
    /* one space between tabs, not two: the twelve fit 107 columns (narrower, the row scrolls) */
    #panes Tab { padding: 0 0 0 1; }
    .pane { height: 1fr; }
    """

    def __init__(
        self,
        engine: Engine,
        *,
        demo: bool = False,
        home: Path | None = None,
        stable: bool = False,
        starting: str = "Opening the store… the panes fill as soon as it is ready.",
    ) -> None:
        super().__init__()
        self.engine = engine
        self._opening = engine if isinstance(engine, DeferredEngine) else None
        self._starting = starting
        self.store_state = StoreState.STARTING
        self.failure: CortexError | None = None
        """Why the engine could not be opened; `cortex-tui` prints it on the way out."""
        self._vitals: Vitals | None = None
        self._recheck: Timer | None = None
        self.demo = demo
        self.home = home
        self.stable = stable
        self.sub_title = "demo data" if demo else ""
        preferences = load_preferences(home) if home else None
        themes, theme_problems = load_themes(theme_dirs(home))
        for theme in themes:
            self.register_theme(theme)
        self._problems = [*(preferences.problems if preferences else []), *theme_problems]
        self.user_keymap = preferences.keymap if preferences else {}
        wanted = (preferences.theme if preferences else None) or DEFAULT_THEME
        if wanted not in self.available_themes:
            self._problems.append(f"theme {wanted!r} not found; using {self._fallback()}")
            wanted = self._fallback()
        self.theme = wanted
        self.set_keymap(self.user_keymap)
        self._panes: list[Pane] = []
        """Made in `on_ready`, after the first frame: their modules are the heavy part."""
        self._unmounted: list[Pane] = []
        self._all_mounted = asyncio.Event()

    def _fallback(self) -> str:
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else FALLBACK_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Domain colours, so Textual's built-in themes render signals and conflicts too."""
        return dict(DOMAIN_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="◆")
        if self._opening is not None and not self._opening.ready():
            yield StartingNotice(self._starting)
        with TabbedContent(id="panes"):
            for entry in PANES:
                yield TabPane(f"{entry.key} {entry.title}", id=_tab_id(entry.pane_id))
        yield Footer()

    def on_mount(self) -> None:
        if self._problems:
            self.notify("\n".join(self._problems), title="Settings", severity="warning", timeout=10)

    async def on_ready(self) -> None:
        """Make and mount the panes, now that the first frame is on screen: their
        modules and widgets took two thirds of the time to that frame. The pane shown
        goes first, and gets the keys; then the store is asked how it is (the engine
        may still be opening: the worker waits for it) and the other panes follow. Keys
        typed meanwhile are handled after this, so they find every pane in place."""
        self._panes = [entry.load()(self.engine) for entry in PANES]
        for pane in self._panes:
            pane.stable = self.stable
        self._unmounted = list(self._panes)
        try:
            shown = self._shown_pane()
            if shown is None or not await self._mounted(shown):
                return  # the app is closing
            with self.prevent(TabPane.Focused):
                self._focus_current()
            shown.reload()
            self._probe_store()
            for pane in list(self._unmounted):
                if not await self._mounted(pane):
                    return
        finally:
            self._all_mounted.set()

    async def wait_for_panes(self) -> None:
        """Until every pane is mounted (or the app closed first)."""
        await self._all_mounted.wait()

    @asynccontextmanager
    async def run_test(self, *args: Any, **kwargs: Any) -> AsyncIterator[Pilot[None]]:
        """Textual's headless run, handed over once the panes are in place: tests and
        screenshots drive the app from the moment it runs, and the panes come after
        its first frame."""
        async with super().run_test(*args, **kwargs) as pilot:
            await self.wait_for_panes()
            yield pilot

    def on_unmount(self) -> None:
        """Closing while the engine still opens: waiting workers give up now, or the
        exit would wait for them (a service may take its time to start)."""
        if self._opening is not None:
            self._opening.abandon()

    async def exit_when_mounted(self) -> None:
        """Exit, once the panes are mounted: a widget mounted while the app closes
        fails in Textual (a `Select` finds its overlay gone)."""
        await self.wait_for_panes()
        self.exit()

    # --- the store as a whole: opening, failed, empty, ready ---------------------------

    def _probe_store(self) -> None:
        self.run_worker(
            self._probe, name="store-state", group="store-state", thread=True, exclusive=True
        )

    def _probe(self) -> None:
        """Off the UI thread: wait for an engine still opening, then count memories."""
        if self._opening is not None:
            failure = self._opening.wait()
            if isinstance(failure, OpeningAbandoned):
                return  # the app is closing
            if failure is not None:
                self.call_from_thread(self._failed, failure)
                return
        try:
            vitals: Vitals | None = self.engine.upkeep.vitals()
        except Exception:
            vitals = None
        if not get_current_worker().is_cancelled:  # else a newer probe answers
            self.call_from_thread(self._store_seen, vitals)

    def _failed(self, failure: BaseException) -> None:
        self.failure = failure if isinstance(failure, CortexError) else CortexError(str(failure))
        self.call_later(self._set_state, StoreState.FAILED)

    def _store_seen(self, vitals: Vitals | None) -> None:
        self._vitals = vitals
        for guide in self.query(FirstRunGuide):
            guide.update_vitals(vitals)
        self.call_later(self._set_state, state_of(vitals))

    async def _set_state(self, state: StoreState) -> None:
        was = self.store_state
        self.store_state = state
        await self.query(StartingNotice).remove()
        for pane in self._panes:
            if pane.is_attached:
                await self._cover(pane)
        if state is StoreState.EMPTY and self._recheck is None and not self.stable:
            self._recheck = self.set_interval(EMPTY_RECHECK_SECONDS, self._probe_store)
        if state is not StoreState.EMPTY and self._recheck is not None:
            self._recheck.stop()
            self._recheck = None
        covered = (StoreState.EMPTY, StoreState.FAILED)
        if was is StoreState.EMPTY and state is StoreState.READY:
            self.current_pane.reload()
        if was is not state and (was in covered or state in covered):
            self._focus_current()  # never on a plain start: a query may be half typed

    async def _cover(self, pane: Pane) -> None:
        """Put what the state asks for in place of `pane`, or give the pane back."""
        tab = pane.parent
        if not isinstance(tab, TabPane):
            return
        wanted = self._cover_kind(pane)
        for cover in tab.query(".cover"):
            if type(cover) is not wanted:
                await cover.remove()
        if wanted is not None and not tab.query(wanted):
            await tab.mount(self._make_cover(wanted, pane), before=pane)
        # Hidden and disabled: a covered pane's widgets must not keep (or take) the
        # focus, or their keys would act unseen.
        pane.display = wanted is None
        pane.disabled = wanted is not None

    def _cover_kind(self, pane: Pane) -> type[Widget] | None:
        if self.store_state is StoreState.FAILED:
            return StartFailed
        if self.store_state is StoreState.EMPTY and not pane.useful_when_empty:
            return FirstRunGuide
        return None

    def _make_cover(self, kind: type[Widget], pane: Pane) -> Widget:
        if kind is StartFailed:
            return StartFailed(str(self.failure), None if self.stable else self.home)
        return FirstRunGuide(pane.purpose, self.home, self._vitals)

    def _shown_pane(self) -> Pane | None:
        """The active tab's pane (the first one while no tab is active yet)."""
        active = self.query_one("#panes", TabbedContent).active or _tab_id(PANES[0].pane_id)
        return next((p for p in self._panes if _tab_id(p.pane_id) == active), None)

    def _focus_current(self) -> None:
        """Keys go to the cover when there is one (a guide's list), else to the pane."""
        pane = self._shown_pane()
        if pane is None or not pane.is_attached or pane.parent is None:
            return
        cover = next(iter(pane.parent.query(".cover")), None)
        if isinstance(cover, FirstRunGuide | StartFailed):
            cover.focus_first()
        else:
            pane.focus_first()

    async def _mounted(self, pane: Pane) -> bool:
        """Mount `pane` in its tab unless that is done (a key may show a pane before
        `on_ready` gets to it); False when the app is closing and it cannot be."""
        if pane in self._unmounted:
            tabs = self.query(f"#{_tab_id(pane.pane_id)}").results(TabPane)
            tab = next(iter(tabs), None)
            if tab is None or not tab.is_attached:
                return False
            self._unmounted.remove(pane)
            await tab.mount(pane)
            await self._cover(pane)
        return pane.is_attached

    @property
    def panes(self) -> list[Pane]:
        return list(self._panes)

    @property
    def current_pane(self) -> Pane:
        active = self.query_one("#panes", TabbedContent).active
        return self.query_one(f"#{active} > .pane", Pane)

    def pane(self, pane_id: str) -> Pane | None:
        return next((pane for pane in self._panes if pane.pane_id == pane_id), None)

    def action_show_pane(self, pane_id: str) -> None:
        self.query_one("#panes", TabbedContent).active = _tab_id(pane_id)

    @on(TabbedContent.TabActivated, "#panes")
    async def _pane_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id != event.tabbed_content.active:
            # Stale: the start-up activation of the first tab arriving after a switch.
            # Focusing into it would switch back (a focused descendant activates its tab).
            return
        pane = next((p for p in self._panes if _tab_id(p.pane_id) == event.pane.id), None)
        if pane is None or not await self._mounted(pane):  # the app is closing
            return
        # The pane's keys work at once, without a click first. Its tab is already the
        # active one, and if a key has since chosen another, the focus must not take
        # it back (Textual activates the tab of a focused widget).
        with self.prevent(TabPane.Focused):
            self._focus_current()
        if pane.display:
            pane.reload()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """In stable mode a text cursor does not blink: a frame taken mid-blink differs."""
        if self.stable and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def on_open_history(self, message: OpenHistory) -> None:
        pane = self.pane("history")
        if not isinstance(pane, ShowsChain):
            self.notify("the History pane is not available", severity="warning")
            return
        self.action_show_pane("history")
        pane.show_chain(message.memory_id)

    def on_explain_memory(self, message: ExplainMemory) -> None:
        pane = self.pane("recall")
        if not isinstance(pane, ExplainsMemories):
            self.notify("the Recall pane is not available", severity="warning")
            return
        self.action_show_pane("recall")
        pane.why_not(message.memory_id)

    def on_ask_recall(self, message: AskRecall) -> None:
        pane = self.pane("recall")
        if not isinstance(pane, AsksRecall):
            self.notify("the Recall pane is not available", severity="warning")
            return
        self.action_show_pane("recall")
        pane.ask(message.query)

    def on_store_changed(self, message: StoreChanged) -> None:
        """The visible pane reloads now; the others reload when they are shown."""
        if self.store_state is StoreState.EMPTY:
            self._probe_store()
        self.current_pane.reload()

    def action_help(self) -> None:
        pane = self.current_pane
        sections: list[HelpSection] = [
            (pane.title, bindings_of(type(pane).BINDINGS)),
            ("Everywhere", bindings_of(self.BINDINGS)),
        ]
        display = {
            key: self.get_key_display(Binding(key, ""))
            for key in _all_keys(sections, self.user_keymap)
        }
        self.push_screen(
            HelpScreen(f"Keys · {pane.title}", help_content(sections, self.user_keymap, display))
        )

    def action_docs(self, topic: str = "tui") -> None:
        """A reference page; the TUI's own opens at the pane in front of you. The pages
        open in one screen: asked again while it is up, it turns to the page asked for."""
        # imported here: the Markdown viewer is no part of the first frame
        from cortex_tui.tui.docs_screen import DocsScreen

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
        page = docs_pages.find(topic)
        anchor = self._shown_pane_title().lower() if topic == "tui" else ""
        if isinstance(self.screen, DocsScreen):
            self.screen.turn_to(page, anchor)
        else:
            self.push_screen(DocsScreen(page, anchor))

    def _shown_pane_title(self) -> str:
        active = self.screen_stack[0].query_one("#panes", TabbedContent).active
        return next((pane.title for pane in PANES if _tab_id(pane.pane_id) == active), "")

    def action_next_theme(self) -> None:
        names = sorted(self.available_themes)
        self.theme = names[(names.index(self.theme) + 1) % len(names)]

    def watch_theme(self, theme_name: str) -> None:
        """Remember the choice at once (Textual's theme signal comes later, and a quit
        right after the change could drop it)."""
        if self.home is None or not self.is_running:
            return
        problem = remember_theme(self.home, theme_name)
        if problem:
            self.notify(problem, severity="warning")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every pane, every pane action (it switches to the pane first), every theme."""
        yield from super().get_system_commands(screen)
        for pane in self.panes:
            yield SystemCommand(
                f"Go to {pane.title}",
                f"Show the {pane.title} pane (key {pane.key})",
                lambda pane_id=pane.pane_id: self.action_show_pane(pane_id),
            )
            for binding in bindings_of(type(pane).BINDINGS):
                yield SystemCommand(
                    f"{pane.title}: {binding.description}",
                    binding.tooltip or f"{binding.description} in the {pane.title} pane",
                    lambda pane=pane, action=binding.action: self._run_pane_action(pane, action),
                )
        for page in docs_pages.PAGES:
            yield SystemCommand(
                f"Docs: {page.title}",
                f"The reference page on {page.summary}",
                lambda topic=page.topic: self.action_docs(topic),
            )
        for name in sorted(self.available_themes):
            yield SystemCommand(
                f"Theme: {name}",
                "Switch to this theme (remembered)",
                lambda name=name: setattr(self, "theme", name),
            )

    def _run_pane_action(self, pane: Pane, action: str) -> None:
        self.action_show_pane(pane.pane_id)
        self.call_later(pane.run_action, action)


def _all_keys(sections: list[HelpSection], keymap: dict[str, str]) -> set[str]:
    return {
        key
        for _, bindings in sections
        for binding in bindings
        for key in effective_keys(binding, keymap).split(",")
    }
