"""`FirstRunGuide`: what a pane shows while the store holds no memory yet.

A new user's first look used to be an empty table with nothing saying how memory gets
in. The guide names the ways in, each as the exact command to run (for this store: a
`--home` the app was opened with is part of it), and enter copies the highlighted one to
the clipboard; what the store's vitals say (the hooks ran, turns wait in the spool)
tells whether anything is on its way already.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cortex_tui.paths import default_home

if TYPE_CHECKING:
    from cortex_tui.overview.models import Vitals


@dataclass(frozen=True)
class Step:
    """One way memory gets in: its command (after `cortex-tui`) and what it does."""

    arguments: str
    purpose: str


STEPS = (
    Step("hook install", "Claude Code: recall before each prompt, capture after each turn"),
    Step("mcp install", "MCP clients: recall, remember and curate as tools"),
    Step("sync ~/notes/", "notes and transcripts, taken in once (`watch` keeps them in step)"),
    Step("index docs/", "markdown documentation, one memory per section"),
    Step("import memories.jsonl", "an export from another store (`cortex-tui export`)"),
    Step('remember "we deploy with make release"', "one fact, by hand"),
)
DEMO_STEP = Step("--demo", "look around first: the app on a throwaway copy of demo data")


def commands(home: Path | None) -> list[tuple[str, str]]:
    """(command, purpose) for each way in. A home other than the one a command finds by
    itself (`CORTEX_HOME`, else the platform's) goes in as `--home`, so a copied command
    acts on the store on screen. The demo needs none."""
    own = home is None or home.expanduser() == default_home().expanduser()
    prefix = "cortex-tui" if own else f"cortex-tui --home {shlex.quote(str(home))}"
    steps = [(f"{prefix} {step.arguments}", step.purpose) for step in STEPS]
    return [*steps, (f"cortex-tui {DEMO_STEP.arguments}", DEMO_STEP.purpose)]


def on_its_way(vitals: Vitals | None) -> str:
    """What the vitals say is already coming, or how to start it."""
    if vitals is None:
        return ""
    if vitals.spool_pending:
        turns = "turn waits" if vitals.spool_pending == 1 else "turns wait"
        return f"{vitals.spool_pending} captured {turns} in the spool: memories appear shortly."
    runs = sum(figures.runs for figures in vitals.hooks)
    if runs:
        times = "time" if runs == 1 else "times"
        return (
            f"The hooks ran {runs} {times} in the last day and kept nothing yet: "
            "a turn is kept once it states a fact, a decision or a preference."
        )
    return "No hook has run in the last day: nothing captures your agent's turns yet."


class FirstRunGuide(Vertical):
    """The ways in as a list: enter, c or a click copies the highlighted command."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy command", id="first-run.copy"),
    ]

    DEFAULT_CSS = """
    FirstRunGuide { height: 1fr; padding: 1 2; }
    FirstRunGuide #first-run-title { text-style: bold; }
    FirstRunGuide #first-run-pane { color: $text-muted; margin-bottom: 1; }
    FirstRunGuide OptionList { height: auto; max-height: 16; }
    FirstRunGuide #first-run-status { margin-top: 1; }
    FirstRunGuide #first-run-hint { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, purpose: str, home: Path | None, vitals: Vitals | None) -> None:
        super().__init__(classes="cover")
        self._purpose = purpose
        self._commands = commands(home)
        self._vitals = vitals

    def compose(self) -> ComposeResult:
        yield Static("Nothing in memory yet.", id="first-run-title")
        yield Static(self._purpose, id="first-run-pane")
        yield Static("Fill it one of these ways:")
        yield OptionList(
            *(Option(_line(command, purpose), id=command) for command, purpose in self._commands),
            id="first-run-commands",
        )
        yield Static(on_its_way(self._vitals), id="first-run-status")
        yield Static(
            "enter, c or a click copies a command. The pane takes this place as soon "
            "as the first memory arrives.",
            id="first-run-hint",
        )

    def update_vitals(self, vitals: Vitals | None) -> None:
        self._vitals = vitals
        self.query_one("#first-run-status", Static).update(on_its_way(vitals))

    def focus_first(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._copy(event.option.id)

    def action_copy(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._copy(options.get_option_at_index(options.highlighted).id)

    def _copy(self, command: str | None) -> None:
        if command is None:
            return
        self.app.copy_to_clipboard(command)
        self.notify(command, title="Copied to the clipboard", timeout=4)


def _line(command: str, purpose: str) -> Content:
    """The command on its own line (long with a `--home`), what it does under it."""
    return Content.assemble((command, "bold $accent"), "\n  ", (purpose, "$text-muted"))
