"""The Recall pane: ask what an agent would recall, and see exactly why it ranks that way.

A query with project / type / tag filters and a weight profile gives a results table;
the highlighted result's score breakdown sits beside it (below it on narrow terminals).
Compare mode ranks a second query, or the same query under a second profile, and shows
every memory's movement with the contribution change behind it. "Why not?" places any
memory id in the ranking and names what holds it back. The weight editor re-ranks live
and saves profiles to config. TUI queries never touch access counts (`update_access`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.theme import Theme
from textual.widgets import ContentSwitcher, DataTable, Input, Label, Select, Static

from cortex_tui.config import RecallWeights
from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Explanation, Memory, MemoryType, RecallResponse, RecallResult
from cortex_tui.recall.request import RecallRequest
from cortex_tui.tui.compare import Movement, compare, movement_content
from cortex_tui.tui.panes.base import Answered, OpenHistory, Pane
from cortex_tui.tui.panes.recall_tables import fill_compare, fill_results
from cortex_tui.tui.score_text import result_detail, why_not_content
from cortex_tui.tui.widgets.weights import SaveProfile, WeightEditor, WeightsEdited

LIMIT = 20
NARROW = 150
"""Below this width the breakdown goes under the results instead of beside them."""
SIDE_WIDTH = 66


@dataclass(frozen=True)
class RecallOutcome:
    """One refresh: ranking A, ranking B in compare mode, and the engine's clock."""

    a: RecallResponse
    b: RecallResponse | None
    now: datetime


@dataclass(frozen=True)
class Options:
    """What the pickers offer: weight profiles and the projects the store knows."""

    profiles: dict[str, RecallWeights]
    projects: list[str]


class OptionsLoaded(Answered[Options]):
    """The weight profiles and projects to offer."""


class RecallDone(Answered[RecallOutcome]):
    """A query ranked (and its comparison, in compare mode)."""


class ExplanationReady(Answered[Explanation]):
    """Where one memory ranks for the current query, and what holds it back."""


@dataclass
class ProfileSaved(Message, bubble=False):
    """A weight profile written to config.toml."""

    name: str
    weights: RecallWeights


def parse_tags(text: str) -> list[str] | None:
    tags = [tag.strip() for tag in text.split(",") if tag.strip()]
    return tags or None


class RecallPane(Pane):
    """Query, results, breakdown; compare, why-not and weight editing on keys."""

    pane_id = "recall"
    title = "Recall"
    key = "1"
    purpose = "Recall ranks what your agent would be given for a query, and shows why."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_query", "Query", id="recall.focus_query"),
        Binding("c", "toggle_compare", "Compare", id="recall.compare"),
        Binding("w", "ask_why_not", "Why not?", id="recall.why_not"),
        Binding("e", "toggle_weights", "Weights", id="recall.weights"),
        Binding("h", "open_history", "History", id="recall.history"),
        Binding("x", "clear_filters", "Clear filters", id="recall.clear_filters"),
        Binding("escape", "focus_results", "Results", show=False, id="recall.results"),
    ]

    DEFAULT_CSS = """
    RecallPane .recall-row { height: 1; padding: 0 1; }
    RecallPane .recall-row Label { margin: 0 1 0 0; color: $text-muted; }
    RecallPane .recall-row Input { width: 1fr; margin-right: 2; }
    RecallPane .recall-row Select { width: 22; margin-right: 2; }
    RecallPane #recall-filter-row { margin-bottom: 1; }
    RecallPane #recall-compare-row, RecallPane #recall-why-row { display: none; }
    RecallPane.-compare #recall-compare-row { display: block; }
    RecallPane.-why #recall-why-row { display: block; }
    RecallPane #recall-body { layout: horizontal; height: 1fr; }
    RecallPane #recall-main { width: 1fr; height: 1fr; }
    RecallPane #recall-side { width: 66; height: 1fr; border-left: vkey $panel-lighten-2; }
    RecallPane.-narrow #recall-body { layout: vertical; }
    RecallPane.-narrow #recall-main { height: 2fr; width: 1fr; }
    RecallPane.-narrow #recall-side { height: 3fr; width: 1fr; border-left: none;
        border-top: hkey $panel-lighten-2; }
    RecallPane DataTable { height: 1fr; }
    RecallPane #recall-compare #compare-a { width: 2fr; }
    RecallPane #recall-compare #compare-b { width: 3fr; }
    RecallPane #recall-detail { padding: 0 1; }
    RecallPane #recall-status { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.response: RecallResponse | None = None
        self.response_b: RecallResponse | None = None
        self.movements: list[Movement] = []
        self.explanation: Explanation | None = None
        self.weights: RecallWeights | None = None
        """The editor's weights while they differ from the picked profile."""
        self._profiles: dict[str, RecallWeights] = {}
        self._now: datetime | None = None
        self._options_loaded = False
        self._rendered_width = 0

    def compose(self) -> ComposeResult:
        types = [(member.value, member.value) for member in MemoryType]
        with Horizontal(id="recall-query-row", classes="recall-row"):
            yield Label("query")
            yield Input(
                placeholder="what would the agent recall? (enter)", id="recall-query", compact=True
            )
            yield Label("profile")
            yield _profile_picker("recall-profile")
        with Horizontal(id="recall-filter-row", classes="recall-row"):
            yield Label("project")
            yield Select[str]([], prompt="any", id="recall-project", compact=True)
            yield Label("type")
            yield Select[str](types, prompt="any", id="recall-type", compact=True)
            yield Label("tags")
            yield Input(placeholder="comma separated", id="recall-tags", compact=True)
        with Horizontal(id="recall-compare-row", classes="recall-row"):
            yield Label("compare with query")
            yield Input(placeholder="empty: the same query", id="recall-query-b", compact=True)
            yield Label("profile")
            yield _profile_picker("recall-profile-b")
        with Horizontal(id="recall-why-row", classes="recall-row"):
            yield Label("why not")
            yield Input(placeholder="memory id or prefix (enter)", id="recall-why-id", compact=True)
        with Container(id="recall-body"):
            with ContentSwitcher(initial="recall-results", id="recall-main"):
                yield DataTable(id="recall-results", cursor_type="row", zebra_stripes=True)
                with Horizontal(id="recall-compare"):
                    yield DataTable(id="compare-a", cursor_type="row")
                    yield DataTable(id="compare-b", cursor_type="row")
            with ContentSwitcher(initial="recall-detail", id="recall-side"):
                with VerticalScroll(id="recall-detail"):
                    yield Static(_HINT, id="recall-breakdown")
                yield WeightEditor(id="recall-weights")
        yield Static(id="recall-status")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")
        if self._main_width() != self._rendered_width:
            self._render_tables()

    # Data ---------------------------------------------------------------------------

    def reload(self) -> None:
        if not self._options_loaded:
            engine = self.engine
            self.call_engine(
                lambda: Options(
                    engine.weight_profiles(), sorted(engine.overview.stats().by_project)
                ),
                OptionsLoaded,
                name="recall-options",
            )
        self.run_recall()

    def request(self, query: str, profile: str, weights: RecallWeights | None) -> RecallRequest:
        """The request for the current filters; TUI queries leave access counts alone."""
        project = self.query_one("#recall-project", Select).value
        kind = self.query_one("#recall-type", Select).value
        return RecallRequest(
            query=query,
            project=project if isinstance(project, str) else None,
            types=[MemoryType(kind)] if isinstance(kind, str) else None,
            tags=parse_tags(self.query_one("#recall-tags", Input).value),
            limit=LIMIT,
            update_access=False,
            profile=profile,
            weights=weights,
        )

    def run_recall(self) -> None:
        """Rank the query (and the comparison) in a worker; a newer call cancels an older."""
        query = self.query_one("#recall-query", Input).value.strip()
        if not query:
            return
        request_a = self.request(query, self._profile("#recall-profile"), self.weights)
        request_b = None
        if self.has_class("-compare"):
            query_b = self.query_one("#recall-query-b", Input).value.strip() or query
            request_b = self.request(query_b, self._profile("#recall-profile-b"), None)
        engine = self.engine

        def call() -> RecallOutcome:
            a = engine.recall(request_a)
            b = engine.recall(request_b) if request_b else None
            return RecallOutcome(a, b, engine.now())

        self.call_engine(call, RecallDone, name="recall")

    def ask(self, query: str) -> None:
        """Rank `query` as if typed here (a term picked in the Words pane)."""
        self.query_one("#recall-query", Input).value = query
        self.run_recall()

    def why_not(self, memory_id: str) -> None:
        """Place `memory_id` in the current query's ranking and say what holds it back."""
        self.add_class("-why")
        field = self.query_one("#recall-why-id", Input)
        field.value = memory_id
        query = self.query_one("#recall-query", Input).value.strip()
        if not query:
            self.notify(
                "type a query first: why-not ranks the memory for a query", severity="warning"
            )
            self.query_one("#recall-query", Input).focus()
            return
        request = self.request(query, self._profile("#recall-profile"), self.weights)
        engine = self.engine
        self.call_engine(
            lambda: engine.explain(request, memory_id.strip()),
            ExplanationReady,
            name="recall-explain",
        )

    # Results ------------------------------------------------------------------------

    @on(OptionsLoaded)
    def _show_options(self, message: OptionsLoaded) -> None:
        options = message.result
        self._options_loaded = True
        self._profiles = options.profiles
        names = [(name, name) for name in options.profiles]
        for select_id in ("#recall-profile", "#recall-profile-b"):
            select = self.query_one(select_id, Select)
            current = select.value
            with select.prevent(Select.Changed):
                select.set_options(names)
                select.value = current if current in options.profiles else "default"
        project = self.query_one("#recall-project", Select)
        with project.prevent(Select.Changed):
            project.set_options([(name, name) for name in options.projects])
        profile = self._profile("#recall-profile")
        self.query_one(WeightEditor).load(profile, options.profiles[profile])

    @on(RecallDone)
    def _recall_done(self, message: RecallDone) -> None:
        self.show_outcome(message.result)

    def show_outcome(self, outcome: RecallOutcome) -> None:
        """Show a refresh's rankings (the Recall refresh bench times this)."""
        self.response, self.response_b, self._now = outcome.a, outcome.b, outcome.now
        self.movements = compare(outcome.a.results, outcome.b.results) if outcome.b else []
        self.explanation = None
        self._render_tables()
        self._render_status()
        self._show_selected()

    @on(ExplanationReady)
    def _show_explanation(self, message: ExplanationReady) -> None:
        explanation = message.result
        self.explanation = explanation
        self.query_one("#recall-side", ContentSwitcher).current = "recall-detail"
        self.query_one("#recall-breakdown", Static).update(why_not_content(explanation))

    def _render_status(self) -> None:
        response = self.response
        if response is None:
            return
        parts = [f"{len(response.results)} results from {response.candidates} candidates"]
        if not self.stable:
            parts.append(f"{response.elapsed_ms:.0f} ms")
        if self.weights is not None:
            parts.append("edited weights (unsaved)")
        if self.response_b is not None:
            parts.append(f"B: {len(self.response_b.results)} results")
        self.query_one("#recall-status", Static).update(" · ".join(parts))

    def _render_tables(self) -> None:
        if self.response is None:
            return
        self._rendered_width = self._main_width()
        palette = self.app.theme_variables
        compare_mode = self.response_b is not None
        switcher = self.query_one("#recall-main", ContentSwitcher)
        switcher.current = "recall-compare" if compare_mode else "recall-results"
        main = self._main_width()
        results = self.response.results
        if compare_mode:
            tables = (
                self.query_one("#compare-a", DataTable),
                self.query_one("#compare-b", DataTable),
            )
            fill_compare(*tables, results, self.movements, main, palette)
        else:
            fill_results(
                self.query_one("#recall-results", DataTable), results, main, self._now, palette
            )

    def _main_width(self) -> int:
        """Width left for the results, from the pane's own size (known before the tables')."""
        width = self.size.width
        return width if width < NARROW else width - SIDE_WIDTH - 1

    # Selection ----------------------------------------------------------------------

    @property
    def selected(self) -> Memory | None:
        """The memory under the cursor of the table in front."""
        if self.response_b is not None:
            movement = self._selected_movement()
            return movement.memory if movement else None
        result = self._selected_result()
        return result.memory if result else None

    def _selected_result(self) -> RecallResult | None:
        if self.response is None or not self.response.results:
            return None
        table = self.query_one("#recall-results", DataTable)
        return self.response.results[min(table.cursor_row, len(self.response.results) - 1)]

    def _selected_movement(self) -> Movement | None:
        if not self.movements:
            return None
        table = self.query_one("#compare-b", DataTable)
        return self.movements[min(table.cursor_row, len(self.movements) - 1)]

    def _show_selected(self) -> None:
        detail = self.query_one("#recall-breakdown", Static)
        if self.response_b is not None:
            movement = self._selected_movement()
            detail.update(movement_content(movement) if movement else _EMPTY)
        else:
            result = self._selected_result()
            detail.update(result_detail(result) if result else _EMPTY)

    @on(DataTable.RowHighlighted, "#recall-results, #compare-b")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.explanation is None:
            self._show_selected()

    @on(DataTable.RowHighlighted, "#compare-a")
    def _row_a_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.response and self.response.results and self.explanation is None:
            row = min(event.cursor_row, len(self.response.results) - 1)
            result = self.response.results[row]
            self.query_one("#recall-breakdown", Static).update(result_detail(result))

    # Inputs -------------------------------------------------------------------------

    @on(Input.Submitted, "#recall-query, #recall-query-b, #recall-tags")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.run_recall()
        if event.input.id == "recall-query":
            self.action_focus_results()

    @on(Input.Submitted, "#recall-why-id")
    def _why_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.why_not(event.value)

    @on(Select.Changed, "#recall-project, #recall-type, #recall-profile-b")
    def _filter_changed(self, event: Select.Changed) -> None:
        self.run_recall()

    @on(Select.Changed, "#recall-profile")
    def _profile_changed(self, event: Select.Changed) -> None:
        profile = self._profile("#recall-profile")
        self.weights = None
        if profile in self._profiles:
            self.query_one(WeightEditor).load(profile, self._profiles[profile])
        self.run_recall()

    @on(WeightsEdited)
    def _weights_edited(self, event: WeightsEdited) -> None:
        self.weights = event.weights
        self.run_recall()

    @on(SaveProfile)
    def _save_profile(self, event: SaveProfile) -> None:
        engine, name, weights = self.engine, event.name, event.weights
        self.call_engine(
            lambda: engine.save_weight_profile(name, weights),
            lambda _: ProfileSaved(name, weights),
            name="recall-save-profile",
        )

    @on(ProfileSaved)
    def _profile_saved(self, message: ProfileSaved) -> None:
        self.notify(f"saved weight profile {message.name!r} to config.toml", title="Weights")
        self.weights = None
        self._options_loaded = False
        self._profiles = {**self._profiles, message.name: message.weights}
        select = self.query_one("#recall-profile", Select)
        select.set_options([(n, n) for n in self._profiles])
        select.value = message.name

    def _theme_changed(self, theme: Theme) -> None:
        self._render_tables()

    def _profile(self, select_id: str) -> str:
        value = self.query_one(select_id, Select).value
        return value if isinstance(value, str) else "default"

    def focus_first(self) -> None:
        self.action_focus_results()

    def action_focus_results(self) -> None:
        table_id = "#compare-b" if self.has_class("-compare") else "#recall-results"
        self.query_one(table_id, DataTable).focus()

    # Actions ------------------------------------------------------------------------

    def action_focus_query(self) -> None:
        self.query_one("#recall-query", Input).focus()

    def action_toggle_compare(self) -> None:
        """Compare mode on/off; on, B defaults to the same query under another profile."""
        self.toggle_class("-compare")
        if not self.has_class("-compare"):
            self.response_b = None
            self.movements = []
        self.run_recall()
        if self.has_class("-compare"):
            self.query_one("#recall-query-b", Input).focus()
        else:
            self.action_focus_results()

    def action_ask_why_not(self) -> None:
        self.add_class("-why")
        selected = self.selected
        field = self.query_one("#recall-why-id", Input)
        if selected and not field.value:
            field.value = selected.short_id
        field.focus()

    def action_toggle_weights(self) -> None:
        side = self.query_one("#recall-side", ContentSwitcher)
        editing = side.current != "recall-weights"
        side.current = "recall-weights" if editing else "recall-detail"
        if editing:
            self.query_one(WeightEditor).query(Input).first().focus()

    def action_open_history(self) -> None:
        memory = self.selected
        if memory is None:
            self.notify("select a result first", severity="warning")
            return
        self.post_message(OpenHistory(memory.id))

    def action_clear_filters(self) -> None:
        for select_id in ("#recall-project", "#recall-type"):
            select = self.query_one(select_id, Select)
            with select.prevent(Select.Changed):
                select.clear()
        self.query_one("#recall-tags", Input).value = ""
        self.explanation = None
        self.run_recall()


_HINT = Content.assemble(
    ("Press / to type a query, then enter.", "bold"),
    "\n\nThe highlighted result's score breakdown appears here: its relevance, the eight "
    "priors that refine it (raw value × weight → factor, and the points each adds), both "
    "penalties, how the channels were fused and where each ranked it.\n\n",
    ("c", "bold $accent"),
    " compare two queries or two weight profiles\n",
    ("w", "bold $accent"),
    " why not? — where does a given memory rank\n",
    ("e", "bold $accent"),
    " edit weights, re-rank live, save as a profile",
)
_EMPTY = Content.styled("no results", "$text-muted")


def _profile_picker(select_id: str) -> Select[str]:
    """A recall profile to rank with; it starts on the default one, and the pane offers
    the others once the engine has listed them."""
    return Select[str](
        [("default", "default")], value="default", allow_blank=False, id=select_id, compact=True
    )
