"""`CortexApp`: one tab per pane over an `Engine`, with palette, help, themes and keymap.

The app knows panes only through `registry.PANES` and the `Pane` contract; it routes the
cross-pane messages (`OpenHistory`, `ExplainMemory`, `StoreChanged`) and owns what is
app-wide: themes (files from `themes/`, the choice remembered in config.toml), the
keymap from `[tui.keymap]`, the command palette and the `?` help screen. It receives an
`Engine` and never assumes which implementation it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Footer, Header, TabbedContent, TabPane

from cortex_tui.engine.protocol import Engine
from cortex_tui.tui.colours import DOMAIN_DEFAULTS
from cortex_tui.tui.help import (
    HelpScreen,
    HelpSection,
    bindings_of,
    effective_keys,
    help_content,
)
from cortex_tui.tui.panes.base import ExplainMemory, OpenHistory, Pane, StoreChanged
from cortex_tui.tui.preferences import load_preferences, remember_theme
from cortex_tui.tui.registry import PANES
from cortex_tui.tui.themes import load_themes, theme_dirs

DEFAULT_THEME = "cortex-night"
FALLBACK_THEME = "textual-dark"


@runtime_checkable
class ShowsChain(Protocol):
    """A pane that can show the version chain of one memory (the History pane)."""

    def show_chain(self, memory_id: str) -> None: ...


@runtime_checkable
class ExplainsMemories(Protocol):
    """A pane that answers "why not?" for a memory id (the Recall pane)."""

    def why_not(self, memory_id: str) -> None: ...


def _tab_id(pane_id: str) -> str:
    return f"tab-{pane_id}"


class CortexApp(App[None]):
    """The terminal UI over one engine.

    `demo` only changes the subtitle; `home` is where config.toml (theme, keymap) lives;
    `stable=True` hides what differs from run to run (elapsed times, the store's
    location), for screenshots and snapshot tests.
    """

    TITLE = "cortex-tui"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="app.help"),
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
    .pane { height: 1fr; }
    """

    def __init__(
        self,
        engine: Engine,
        *,
        demo: bool = False,
        home: Path | None = None,
        stable: bool = False,
    ) -> None:
        super().__init__()
        self.engine = engine
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

    def _fallback(self) -> str:
        return DEFAULT_THEME if DEFAULT_THEME in self.available_themes else FALLBACK_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Domain colours, so Textual's built-in themes render signals and conflicts too."""
        return dict(DOMAIN_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="◆")
        with TabbedContent(id="panes"):
            for pane_class in PANES:
                with TabPane(
                    f"{pane_class.key} {pane_class.title}", id=_tab_id(pane_class.pane_id)
                ):
                    yield pane_class(self.engine)
        yield Footer()

    def on_mount(self) -> None:
        if self._problems:
            self.notify("\n".join(self._problems), title="Settings", severity="warning", timeout=10)
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        for pane in self.panes:
            pane.stable = self.stable

    @property
    def panes(self) -> list[Pane]:
        return list(self.query(Pane))

    @property
    def current_pane(self) -> Pane:
        active = self.query_one("#panes", TabbedContent).active
        return self.query_one(f"#{active} > .pane", Pane)

    def pane(self, pane_id: str) -> Pane | None:
        found = self.query(f"#{pane_id}").results(Pane)
        return next(iter(found), None)

    def action_show_pane(self, pane_id: str) -> None:
        self.query_one("#panes", TabbedContent).active = _tab_id(pane_id)

    @on(TabbedContent.TabActivated, "#panes")
    def _pane_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id != event.tabbed_content.active:
            # Stale: the start-up activation of the first tab arriving after a switch.
            # Focusing into it would switch back (a focused descendant activates its tab).
            return
        found = event.pane.query(Pane)
        if not found:  # the tab is being torn down (the app is closing)
            return
        pane = found.first()
        pane.focus_first()  # the pane's keys work at once, without a click first
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

    def on_store_changed(self, message: StoreChanged) -> None:
        """The visible pane reloads now; the others reload when they are shown."""
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

    def action_next_theme(self) -> None:
        names = sorted(self.available_themes)
        self.theme = names[(names.index(self.theme) + 1) % len(names)]

    def _on_theme_changed(self, theme: Theme) -> None:
        if self.home is None:
            return
        problem = remember_theme(self.home, theme.name)
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
