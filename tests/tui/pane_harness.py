"""A one-pane app for testing a pane on its own: no tabs, no theme files, no keymap.

It does what `CortexApp` does for a pane (domain colour variables, reload on mount and
after `StoreChanged`) and records the cross-pane messages it would route, so a test can
assert that a pane asked for the History pane or the Recall pane's "why not?".
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Footer

from cortex_tui.tui.colours import DOMAIN_DEFAULTS
from cortex_tui.tui.panes.base import ExplainMemory, OpenHistory, Pane, StoreChanged
from cortex_tui.tui.scenes import workers_done


class PaneApp(App[None]):
    CSS = ".pane { height: 1fr; }"

    def __init__(self, pane: Pane) -> None:
        super().__init__()
        self.pane = pane
        self.routed: list[Message] = []
        self.theme = "textual-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(DOMAIN_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield self.pane
        yield Footer()

    def on_mount(self) -> None:
        self.pane.reload()

    def on_store_changed(self, message: StoreChanged) -> None:
        self.routed.append(message)
        self.pane.reload()

    def on_open_history(self, message: OpenHistory) -> None:
        self.routed.append(message)

    def on_explain_memory(self, message: ExplainMemory) -> None:
        self.routed.append(message)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until engine workers (and the workers their results start) are done and
    every message they set off is handled: a message bubbles one widget a pause, so a
    pane asking the app for another pane takes several."""
    app = pilot.app
    for _ in range(20):
        await workers_done(app)
        await pilot.pause()
        pending = any(n.message_queue_size for n in (app, *app.screen.walk_children()))
        if not app.workers and not pending:
            return
