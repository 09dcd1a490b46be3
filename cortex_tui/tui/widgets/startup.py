"""What the app shows while its engine is not there yet, or could not be had.

The first frame comes before the engine: starting the local service (or opening a large
store) takes seconds, and a window that stays blank meanwhile looks like a hang.
`StartingNotice` is one line above every pane until the engine answers; the panes are
already usable (a query typed now runs once it is ready). `StartFailed` takes a pane's
place when the engine cannot be had: the reason, where the log is, and the ways out.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from cortex_tui.clients.local_service import SERVICE_LOG


class StartingNotice(Static):
    DEFAULT_CSS = """
    StartingNotice {
        height: 1;
        padding: 0 1;
        background: $warning-muted;
        color: $text;
    }
    """

    def __init__(self, what: str) -> None:
        super().__init__(Content.assemble(("◌ ", "bold $warning"), what), id="starting")


class StartFailed(Vertical):
    """Covers a pane: nothing in it can work without the engine."""

    DEFAULT_CSS = """
    StartFailed { height: 1fr; padding: 1 2; }
    StartFailed #start-failed-title { text-style: bold; color: $error; margin-bottom: 1; }
    StartFailed #start-failed-reason { margin-bottom: 1; }
    """

    def __init__(self, reason: str, home: Path | None) -> None:
        super().__init__(classes="cover")
        self._reason = reason
        self._home = home

    def compose(self) -> ComposeResult:
        yield Static("✗ The memory could not be opened", id="start-failed-title")
        yield Static(self._reason, id="start-failed-reason")
        for line in ways_out(self._home):
            yield Static(line, classes="way-out")

    def focus_first(self) -> None:
        """Nothing here takes keys (ctrl+q still quits): the hidden pane must not keep
        the focus, or its keys would show in the footer and act unseen."""
        self.screen.set_focus(None)


def ways_out(home: Path | None) -> list[Content]:
    """The commands that tell more or get round it; the log under `home` (relative to
    the home when it is not given: screenshots must not show a temporary folder)."""
    log = (home / "logs" / SERVICE_LOG) if home is not None else Path("logs") / SERVICE_LOG
    return [
        Content.assemble(("cortex-tui serve --status", "bold $accent"), "  what the service says"),
        Content.assemble((f"{log}", "bold $accent"), "  why it stopped, when it did"),
        Content.assemble(
            ("cortex-tui --no-daemon", "bold $accent"),
            "  open the store in this process instead of through the service",
        ),
        Content("ctrl+q quits; the reason is printed again on the way out."),
    ]
