"""The Given pane: what memory gave the agent, prompt by prompt, and why.

Sessions, newest first, each with its prompts; a prompt shows the memories its context
held (rank, score, id, text) and those the budget had no room for. A memory's score as
computed on that turn is shown beside the score the same prompt gives it now (`explain`),
since the store, the access counts and the clock have moved since. From there one key
each opens its history, edits or forgets it, or judges it useful or wrong there; a wrong
one is lowered (a new version with less confidence), and `u` takes the judgement back.
`f` lists the memories given often that no one judged useful.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import CortexError
from cortex_tui.format import line_text
from cortex_tui.given.judgements import Judgement
from cortex_tui.given.record import GivenMemory, GivenRecord, Verdict
from cortex_tui.given.usefulness import Unhelpful
from cortex_tui.models import Explanation, HeldBack, Memory
from cortex_tui.recall.request import RecallRequest
from cortex_tui.tui.given_text import (
    given_cells,
    held_back_cells,
    held_back_why,
    left_out_cells,
    session_label,
    then_and_now,
    turn_heading,
    turn_label,
    unhelpful_cells,
)
from cortex_tui.tui.panes.base import Answered, OpenHistory, Pane, Written, titled
from cortex_tui.tui.widgets.text_edit import EditTextModal

TURNS_SHOWN = 200
"""The newest turns the list holds (`cortex-tui given --limit` reaches further back)."""
OFTEN = 3
"""Turns a memory must be given in to count as given often."""
_PROMPT_WIDTH = 27
_TEXT_WIDTH = 90
COLUMNS = ("", "#", "score", "id", "type", "text")
UNHELPFUL_COLUMNS = ("", "given", "wrong", "id", "last", "text")


@dataclass(frozen=True)
class NowScore:
    """A memory's place for a turn's prompt now, or why it could not be asked."""

    turn_id: str
    memory_id: str
    explanation: Explanation | None
    problem: str = ""


class GivenLoaded(Answered[list[GivenRecord]]):
    """The newest recorded turns."""


class UnhelpfulLoaded(Answered[list[Unhelpful]]):
    """The memories given often that no one judged useful."""


class NowExplained(Answered[NowScore]):
    """Where the highlighted memory ranks for its turn's prompt now."""


class Judged(Answered[Judgement]):
    """A judgement recorded (and, for a wrong memory, the version it was lowered to)."""


class FetchedForEdit(Answered[Memory]):
    """The memory to edit, as it is now."""


class GivenPane(Pane):
    """A list of sessions and their turns; the chosen turn's memories; one memory's score
    then and now."""

    pane_id = "given"
    title = "Given"
    key = "G"
    purpose = "Given shows, prompt by prompt, what memory gave the agent and why."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "judge('useful')", "Useful here", id="given.useful"),
        Binding("w", "judge('wrong')", "Wrong here", id="given.wrong"),
        Binding("u", "undo", "Undo", id="given.undo"),
        Binding("h", "history", "History", id="given.history"),
        Binding("e", "edit", "Edit", id="given.edit"),
        Binding("x,delete", "forget", "Forget", id="given.forget"),
        Binding("f", "toggle_unhelpful", "Given for nothing", id="given.unhelpful"),
        Binding("f5", "reload", "Refresh", show=False, id="given.reload"),
    ]

    DEFAULT_CSS = """
    GivenPane #given-body { height: 1fr; }
    GivenPane #given-list { width: 44; height: 1fr; border: round $panel-lighten-2; }
    GivenPane #given-right { width: 1fr; height: 1fr; }
    GivenPane #given-head { height: auto; max-height: 4; padding: 0 1; }
    GivenPane #given-memories { height: 1fr; border: round $panel-lighten-2; overflow-x: hidden; }
    GivenPane #given-why { height: auto; max-height: 14; padding: 0 1; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._turns: dict[str, GivenRecord] = {}
        self._turn: GivenRecord | None = None
        self._rows: dict[str, GivenMemory | Unhelpful | HeldBack | None] = {}
        self._unhelpful: list[Unhelpful] | None = None
        self._drawn: str | None = None
        """The turn the table shows (None: none, or the filter)."""
        self._judgement: Judgement | None = None
        """This pane's last judgement, while it is the last thing done: `u` takes it back."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="given-body"):
            yield titled(OptionList(id="given-list"), "Sessions · turns")
            with Vertical(id="given-right"):
                yield Static(id="given-head")
                yield titled(
                    DataTable(cursor_type="row", zebra_stripes=True, id="given-memories"), "Given"
                )
                yield Static(id="given-why")

    def on_mount(self) -> None:
        self._columns(COLUMNS)

    def _columns(self, labels: tuple[str, ...]) -> None:
        """The table's columns for what it lists (a turn's memories, or the filter's)."""
        table = self.query_one("#given-memories", DataTable)
        if tuple(str(column.label) for column in table.columns.values()) != labels:
            table.clear(columns=True)
            for number, label in enumerate(labels):
                table.add_column(label, key=f"c{number}")

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        engine = self.engine
        self.call_engine(lambda: engine.given.records(limit=TURNS_SHOWN), GivenLoaded, name="given")
        if self._unhelpful is not None:
            self._load_unhelpful()

    def action_reload(self) -> None:
        self.reload()

    @on(GivenLoaded)
    def _loaded(self, message: GivenLoaded) -> None:
        turns = message.result
        self._turns = {turn.id: turn for turn in turns}
        listing = self.query_one("#given-list", OptionList)
        keep = self._turn.id if self._turn else None
        listing.clear_options()
        for session, run in _sessions(turns):
            listing.add_option(
                Option(session_label(run[0], len(run)), id=f"s:{session}", disabled=True)
            )
            for turn in run:
                listing.add_option(Option(turn_label(turn, _PROMPT_WIDTH), id=turn.id))
        if not turns:
            self._turn = None
            self.query_one("#given-head", Static).update(
                "No turn is on record yet: the hooks and MCP recalls record what they give "
                "(injections.enabled)."
            )
            self._show_given()
            return
        chosen = keep if keep in self._turns else turns[0].id
        with self.prevent(OptionList.OptionHighlighted):
            listing.highlighted = listing.get_option_index(chosen)
        self._turn = self._turns[chosen]
        self._show_given()

    @on(OptionList.OptionHighlighted, "#given-list")
    def _turn_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """A turn chosen in the list: shown, leaving the filter."""
        turn = self._turns.get(event.option.id or "")
        if turn is not None:
            self._turn = turn
            self._unhelpful = None
            self._show_given()

    def _show_given(self) -> None:
        """The turn's memories (or the filter's); the cursor stays on its row when the
        same turn is drawn again (after a judgement, say)."""
        table = self.query_one("#given-memories", DataTable)
        turn = self._turn
        same = turn is not None and turn.id == self._drawn
        keep_row = table.cursor_row if same else 0
        self._drawn = turn.id if turn is not None and self._unhelpful is None else None
        table.clear()
        self._rows = {}
        if self._unhelpful is not None:
            self._columns(UNHELPFUL_COLUMNS)
            self._show_unhelpful(table)
            return
        self._columns(COLUMNS)
        if turn is None:
            self.query_one("#given-why", Static).update("")
            return
        self.query_one("#given-head", Static).update(turn_heading(turn))
        table.border_title = "Given"
        for memory in turn.given:
            self._rows[memory.id] = memory
            table.add_row(*given_cells(turn, memory, _TEXT_WIDTH), key=memory.id)
        for left in turn.left_out:
            self._rows[f"left:{left.id}"] = None
            table.add_row(*left_out_cells(left, _TEXT_WIDTH), key=f"left:{left.id}")
        for held in turn.held_back:
            self._rows[f"held:{held.id}"] = held
            table.add_row(*held_back_cells(held, _TEXT_WIDTH), key=f"held:{held.id}")
        if self._rows:
            table.move_cursor(row=min(max(keep_row, 0), len(self._rows) - 1))
        self._show_why()

    def _show_unhelpful(self, table: DataTable[Text]) -> None:
        items = self._unhelpful or []
        table.border_title = f"Given in {OFTEN}+ turns, never judged useful"
        self.query_one("#given-head", Static).update(
            Content.styled(
                f"{len(items)} memories were given in {OFTEN} or more of the recorded turns and "
                "never judged useful there (y marks one useful; w wrong).",
                "$text-muted",
            )
        )
        for item in items:
            self._rows[item.id] = item
            table.add_row(*unhelpful_cells(item, _TEXT_WIDTH), key=item.id)
        self.query_one("#given-why", Static).update("")

    @on(DataTable.RowHighlighted, "#given-memories")
    def _row_highlighted(self) -> None:
        self._show_why()

    def _show_why(self) -> None:
        why = self.query_one("#given-why", Static)
        memory, turn = self._selected_given(), self._turn
        held = self._rows.get(self._selected_key() or "")
        if isinstance(held, HeldBack) and self._unhelpful is None:
            why.update(held_back_why(held))
            return
        if memory is None or turn is None or self._unhelpful is not None:
            why.update("")
            return
        if memory.breakdown is None:
            why.update(
                Content.styled(
                    "A standing rule: given when the session started, whatever the prompt.",
                    "$text-muted",
                )
            )
            return
        why.update(then_and_now(memory.breakdown, memory.rank, None))
        engine, prompt, project = self.engine, turn.prompt, turn.project
        turn_id, memory_id = turn.id, memory.id

        def ask() -> NowScore:
            request = RecallRequest(query=prompt, project=project, update_access=False)
            try:
                return NowScore(turn_id, memory_id, engine.explain(request, memory_id))
            except CortexError as exc:
                return NowScore(turn_id, memory_id, None, str(exc))

        self.call_engine(ask, NowExplained, name="given.now")

    @on(NowExplained)
    def _now_explained(self, message: NowExplained) -> None:
        now, memory = message.result, self._selected_given()
        if memory is None or memory.id != now.memory_id or memory.breakdown is None:
            return
        why = self.query_one("#given-why", Static)
        if now.explanation is None:
            then = then_and_now(memory.breakdown, memory.rank, None)
            why.update(Content.assemble(then, "\n", Content.styled(now.problem, "$warning")))
            return
        why.update(then_and_now(memory.breakdown, memory.rank, now.explanation))

    def _selected_key(self) -> str | None:
        """The highlighted row's key: a memory's id, or `left:` (`held:`) and the id of
        one left out (held back)."""
        table = self.query_one("#given-memories", DataTable)
        if not self._rows or table.cursor_row < 0:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or ""

    def _selected_id(self) -> str | None:
        key = self._selected_key()
        return None if key is None else key.removeprefix("left:").removeprefix("held:")

    def _selected_given(self) -> GivenMemory | None:
        found = self._rows.get(self._selected_key() or "")
        return found if isinstance(found, GivenMemory) else None

    # --- the filter ---------------------------------------------------------------------

    def action_toggle_unhelpful(self) -> None:
        if self._unhelpful is not None:
            self._unhelpful = None
            self._show_given()
            return
        self._load_unhelpful()

    def _load_unhelpful(self) -> None:
        engine = self.engine
        self.call_engine(
            lambda: engine.given.unhelpful_memories(min_given=OFTEN),
            UnhelpfulLoaded,
            name="given.often",
        )

    @on(UnhelpfulLoaded)
    def _unhelpful_loaded(self, message: UnhelpfulLoaded) -> None:
        self._unhelpful = message.result
        self._show_given()

    # --- judging and curating -----------------------------------------------------------

    def _target_id(self) -> str | None:
        memory_id = self._selected_id()
        if memory_id is None:
            self.notify("No memory selected.", severity="warning")
        return memory_id

    def action_judge(self, verdict: Verdict) -> None:
        """Judge the memory where this turn gave it (in the filter: where it was last
        given)."""
        memory_id = self._target_id()
        if memory_id is None:
            return
        turn_id = self._turn_of(memory_id)
        if turn_id is None:
            self.notify(
                "That memory had no room on this turn: nothing to judge.", severity="warning"
            )
            return
        engine = self.engine
        self.call_engine(
            lambda: engine.given.judge_turn(turn_id, memory_id, verdict), Judged, name="given.judge"
        )

    def _turn_of(self, memory_id: str) -> str | None:
        """The turn to judge `memory_id` on: the one shown, or (in the filter) the newest
        that gave it."""
        if self._unhelpful is None:
            turn = self._turn
            given = turn is not None and any(m.id == memory_id for m in turn.given)
            return turn.id if given and turn is not None else None
        return next(
            (
                turn.id
                for turn in self._turns.values()
                if any(m.id == memory_id for m in turn.given)
            ),
            None,
        )

    @on(Judged)
    def _judged(self, message: Judged) -> None:
        judgement = message.result
        self._judgement = judgement
        short = judgement.memory_id[:8]
        if judgement.lowered is not None:
            lowered = judgement.lowered
            summary = (
                f"{short} judged wrong here: lowered to confidence {lowered.confidence:.2f} "
                f"as {lowered.short_id} (u takes it back)"
            )
        elif judgement.verdict == "wrong":
            summary = f"{short} judged wrong here (it has been replaced since; u takes it back)"
        else:
            summary = f"{short} judged useful here (u takes it back)"
        self.post_message(Written(summary))

    def action_undo(self) -> None:
        """Take back this pane's last judgement when it was the last thing done; else the
        last curation step, as everywhere."""
        judgement, self._judgement = self._judgement, None
        if judgement is None:
            self.undo_last()
            return
        engine = self.engine
        self.call_engine(
            lambda: engine.given.withdraw_judgement(judgement.id),
            lambda taken: Written(f"Took back the judgement of {taken.memory_id[:8]}"),
            name="given.withdraw",
        )

    def action_history(self) -> None:
        memory_id = self._target_id()
        if memory_id is not None:
            self.post_message(OpenHistory(memory_id))

    def action_edit(self) -> None:
        memory_id = self._target_id()
        if memory_id is not None:
            engine = self.engine
            self.call_engine(lambda: engine.get(memory_id), FetchedForEdit, name="given.get")

    @on(FetchedForEdit)
    def _fetched_for_edit(self, message: FetchedForEdit) -> None:
        memory = message.result
        if not memory.is_current:
            self.notify(
                f"{memory.short_id} is not the current version; h shows the chain.",
                severity="warning",
            )
            return
        engine = self.engine
        self._judgement = None

        def edited(text: str | None) -> None:
            if text is not None:
                self.call_engine(
                    lambda: engine.update(memory.id, content=text),
                    lambda new: Written(
                        f"Edited: new version {new.short_id} supersedes {memory.short_id}"
                    ),
                    name="given.edit",
                )

        self.app.push_screen(
            EditTextModal(
                f"Edit {memory.short_id}",
                memory.content,
                hint="Saving writes a new version; the old one stays in the history.",
            ),
            edited,
        )

    def action_forget(self) -> None:
        memory_id = self._target_id()
        if memory_id is not None:
            self._judgement = None
            self.forget_after_asking(memory_id, self._line_of(memory_id))

    def _line_of(self, memory_id: str) -> str:
        row = self._rows.get(memory_id)
        if isinstance(row, Unhelpful):
            return line_text(row.line)
        if isinstance(row, GivenMemory) and self._turn is not None:
            return line_text(self._turn.line_of(row))
        if isinstance(row, HeldBack):
            return row.text
        turn = self._turn
        left = next((m for m in turn.left_out if m.id == memory_id), None) if turn else None
        return left.text if left else memory_id


def _sessions(turns: list[GivenRecord]) -> list[tuple[str, list[GivenRecord]]]:
    """Turns grouped by session, the session with the newest turn first, each session's
    turns newest first (`turns` come newest first)."""
    grouped: dict[str, list[GivenRecord]] = {}
    for turn in turns:
        grouped.setdefault(turn.session or "", []).append(turn)
    return list(grouped.items())
