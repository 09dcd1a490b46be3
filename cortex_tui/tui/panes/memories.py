"""The Memories pane: browse the whole store and curate one memory at a time.

Stores grow to tens of thousands of memories, so the table never holds the store: every
filter (type, scope, project, tag, status, text, current versions or all) becomes one
`MemoryFilter` that the store applies, pages of `PAGE` rows come from `list_memories`
with its cursor offsets, and the next page is fetched only when the cursor nears the end
of what is loaded. The text filter is `MemoryFilter.text`, the store's full-text index
(every word must occur), not a similarity search: a browser should show exactly what
matches.

Edits never overwrite: new content, type, scope or tags make a new version that
supersedes the old one; forget marks the memory deleted. Both go through the curation
journal, so undo reverts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static

from cortex_tui.engine.protocol import Engine
from cortex_tui.models import Memory, MemoryPage, MemoryStatus, MemoryType, Scope
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tui.formatting import age, ago, one_line
from cortex_tui.tui.panes.base import Answered, ExplainMemory, OpenHistory, Pane, Written
from cortex_tui.tui.widgets.choice import ChoiceModal
from cortex_tui.tui.widgets.decision import decision_line
from cortex_tui.tui.widgets.prompt import PromptModal
from cortex_tui.tui.widgets.text_edit import EditTextModal

PAGE = 100
PREFETCH_ROWS = 10
_CONTENT_WIDTH = 160
ANY_STATUS = "any"

COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "id"),
    ("type", "type"),
    ("scope", "scope"),
    ("project", "project"),
    ("age", "age"),
    ("content", "content"),
)


@dataclass(frozen=True)
class Filters:
    """What the filter bar says, turned into the store's filter by `to_filter`."""

    text: str = ""
    type: MemoryType | None = None
    scope: Scope | None = None
    status: str = MemoryStatus.ACTIVE.value
    project: str = ""
    tag: str = ""
    all_versions: bool = False

    def to_filter(self) -> MemoryFilter:
        return MemoryFilter(
            text=self.text.strip() or None,
            types=[self.type] if self.type else None,
            scopes=[self.scope] if self.scope else None,
            statuses=None if self.status == ANY_STATUS else [MemoryStatus(self.status)],
            project=self.project.strip() or None,
            project_only=bool(self.project.strip()),
            tags=[self.tag.strip()] if self.tag.strip() else None,
            current_only=not self.all_versions,
        )

    def describe(self) -> str:
        parts = ["all versions" if self.all_versions else "current versions"]
        parts.append("any status" if self.status == ANY_STATUS else self.status)
        return " · ".join(parts)


@dataclass(frozen=True)
class Loaded:
    """A page and what it was asked with: `generation` drops pages of an older filter."""

    page: MemoryPage
    now: datetime
    generation: int
    append: bool


def row_cells(memory: Memory, now: datetime) -> list[Text]:
    """Table cells as `Text` (never markup). Superseded rows are dim, deleted ones struck."""
    style = ""
    if memory.status is not MemoryStatus.ACTIVE:
        style = "strike dim"
    elif memory.valid_to is not None:
        style = "dim"
    values = (
        memory.short_id,
        memory.type.value,
        memory.scope.value,
        memory.project or "",
        age(memory.created_at, now),
        one_line(memory.content, _CONTENT_WIDTH),
    )
    return [Text(value, style=style, no_wrap=True) for value in values]


def state_of(memory: Memory) -> Content:
    if memory.status is not MemoryStatus.ACTIVE:
        return Content.styled(memory.status.value, "$error")
    if memory.valid_to is not None:
        return Content.styled("superseded", "$superseded")
    return Content.styled("current", "$success")


def detail_content(memory: Memory, now: datetime) -> Content:
    """The highlighted memory in full: text, then the facts the table leaves out."""
    tags = ", ".join(memory.tags) or "no tags"
    facts = Content.assemble(
        Content(memory.content),
        "\n",
        state_of(memory),
        (
            f" · {memory.id} · confidence {memory.confidence:.2f} · {tags} · "
            f"{memory.source} · created {ago(memory.created_at, now)}",
            "$text-muted",
        ),
    )
    last = memory.last_decision()
    if last is None:
        return facts
    earlier = len(memory.decisions) - 1
    more = f"  ({earlier} earlier decision{'s' * (earlier != 1)})" if earlier else ""
    return Content.assemble(facts, "\n", decision_line(last), (more, "$text-muted"))


class MemoriesLoaded(Answered[Loaded]):
    """A page of memories under the filters (the first, or the next one)."""


@dataclass
class MemoryUpdated(Message, bubble=False):
    """An edit stored: `new` supersedes `old`; `what` names the change."""

    what: str
    old: Memory
    new: Memory


class MemoriesPane(Pane):
    """A filter bar, a paged table of memories, and the highlighted memory in full."""

    pane_id = "memories"
    title = "Memories"
    key = "5"
    purpose = "Memories lists everything kept, to filter, edit and forget."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="memories.edit"),
        Binding("t", "retype", "Type", id="memories.retype"),
        Binding("s", "rescope", "Scope", id="memories.rescope"),
        Binding("g", "retag", "Tags", id="memories.retag"),
        Binding("x,delete", "forget", "Forget", id="memories.forget"),
        Binding("u", "undo", "Undo", id="memories.undo"),
        Binding("h", "history", "History", id="memories.history"),
        Binding("w", "why_not", "Why not?", id="memories.why_not"),
        Binding("v", "toggle_versions", "All versions", id="memories.versions"),
        Binding("slash", "filter", "Filter", id="memories.filter"),
        Binding("f5", "reload", "Refresh", show=False, id="memories.reload"),
    ]

    DEFAULT_CSS = """
    MemoriesPane { padding: 0 1; }
    MemoriesPane #memories-top { dock: top; height: auto; }
    MemoriesPane #memories-filters { height: 1; margin-bottom: 1; }
    MemoriesPane #memories-filters > * { margin-right: 1; }
    MemoriesPane #memories-text { width: 1fr; }
    MemoriesPane #memories-project, MemoriesPane #memories-tag { width: 12; }
    MemoriesPane Select { width: 15; }
    MemoriesPane #memories-summary { height: 1; color: $text-muted; }
    MemoriesPane DataTable { height: 1fr; overflow-x: hidden; }
    MemoriesPane #memories-detail {
        dock: bottom; height: auto; max-height: 7;
        border-top: solid $panel-lighten-2; padding: 0 1;
    }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.filters = Filters()
        self._generation = 0
        self._rows: dict[str, Memory] = {}
        self._next_offset: str | None = None
        self._loading_more = False
        self._total = 0
        self._now: datetime | None = None
        self._follow: Memory | None = None

    def compose(self) -> ComposeResult:
        # The table comes first in the DOM (the filter bar is docked on top), so it is what
        # takes focus when the pane is shown and the pane's keys work at once.
        yield DataTable(cursor_type="row", zebra_stripes=True, id="memories-table")
        with Vertical(id="memories-top"):
            with Horizontal(id="memories-filters"):
                yield Input(placeholder="/ text: every word", id="memories-text", compact=True)
                yield Select(
                    [(t.value, t) for t in MemoryType],
                    prompt="any type",
                    id="memories-type",
                    compact=True,
                )
                yield Select(
                    [(s.value, s) for s in Scope],
                    prompt="any scope",
                    id="memories-scope",
                    compact=True,
                )
                yield Select(
                    [(s.value, s.value) for s in MemoryStatus] + [("any status", ANY_STATUS)],
                    value=MemoryStatus.ACTIVE.value,
                    allow_blank=False,
                    id="memories-status",
                    compact=True,
                )
                yield Input(placeholder="project", id="memories-project", compact=True)
                yield Input(placeholder="tag", id="memories-tag", compact=True)
            yield Static(id="memories-summary")
        yield Static(id="memories-detail")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        """The first page under the current filters (later pages load on demand)."""
        self._generation += 1
        generation, flt, engine = self._generation, self.filters.to_filter(), self.engine
        self._loading_more = False
        self.call_engine(
            lambda: Loaded(engine.list_memories(flt, limit=PAGE), engine.now(), generation, False),
            MemoriesLoaded,
            name="memories",
        )

    def _load_more(self) -> None:
        offset = self._next_offset
        if offset is None or self._loading_more:
            return
        self._loading_more = True
        generation, flt, engine = self._generation, self.filters.to_filter(), self.engine
        self.call_engine(
            lambda: Loaded(
                engine.list_memories(flt, limit=PAGE, offset=offset), engine.now(), generation, True
            ),
            MemoriesLoaded,
            name="memories.more",
        )

    @on(MemoriesLoaded)
    def _loaded(self, message: MemoriesLoaded) -> None:
        loaded = message.result
        if loaded.generation != self._generation:
            return
        table = self.query_one(DataTable)
        self._now, self._total = loaded.now, loaded.page.total
        self._next_offset = loaded.page.next_offset
        self._loading_more = False
        keep_row = table.cursor_row
        memories = loaded.page.memories
        follow = None if loaded.append else self._follow
        if not loaded.append:
            table.clear()
            self._rows = {}
            self._follow = None
            if follow is not None and follow.id not in {m.id for m in memories}:
                memories = [follow, *memories]  # just written, on a later page: pin it
        for memory in memories:
            if memory.id in self._rows:
                continue
            self._rows[memory.id] = memory
            table.add_row(*row_cells(memory, loaded.now), key=memory.id)
        if not loaded.append and self._rows:
            row = table.get_row_index(follow.id) if follow else keep_row
            table.move_cursor(row=min(max(row, 0), len(self._rows) - 1))
        self._show_summary()
        self._show_detail()

    def _show_summary(self) -> None:
        shown = len(self._rows)
        more = " (more below)" if self._next_offset else ""
        self.query_one("#memories-summary", Static).update(
            f"{self._total} match · {shown} loaded{more} · {self.filters.describe()}"
        )

    def _show_detail(self) -> None:
        memory, detail = self.selected, self.query_one("#memories-detail", Static)
        if memory is None or self._now is None:
            detail.update("No memory matches these filters." if not self._rows else "")
            return
        detail.update(detail_content(memory, self._now))

    @property
    def selected(self) -> Memory | None:
        table = self.query_one(DataTable)
        if not self._rows or table.cursor_row < 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._rows.get(key or "")

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()
        if event.cursor_row >= len(self._rows) - PREFETCH_ROWS:
            self._load_more()

    # --- filters ------------------------------------------------------------------------

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        field = {"memories-text": "text", "memories-project": "project", "memories-tag": "tag"}
        name = field.get(event.input.id or "")
        if name is not None and getattr(self.filters, name) != event.value:
            self._refilter(**{name: event.value})

    @on(Input.Submitted)
    def _input_submitted(self) -> None:
        self.query_one(DataTable).focus()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else event.value
        if event.select.id == "memories-type":
            self._refilter(type=value if isinstance(value, MemoryType) else None)
        elif event.select.id == "memories-scope":
            self._refilter(scope=value if isinstance(value, Scope) else None)
        elif event.select.id == "memories-status" and isinstance(value, str):
            self._refilter(status=value)

    def _refilter(self, **changes: Any) -> None:
        updated = replace(self.filters, **changes)
        if updated != self.filters:
            self.filters = updated
            self.reload()

    def action_filter(self) -> None:
        self.query_one("#memories-text", Input).focus()

    def action_toggle_versions(self) -> None:
        """Show superseded versions too, or current versions only."""
        self._refilter(all_versions=not self.filters.all_versions)

    def action_reload(self) -> None:
        self.reload()

    # --- curation -----------------------------------------------------------------------

    def _target(self) -> Memory | None:
        memory = self.selected
        if memory is None:
            self.notify("No memory selected.", severity="warning")
        return memory

    def _editable(self) -> Memory | None:
        """The selected memory if a new version of it can be written (it is current)."""
        memory = self._target()
        if memory is not None and not memory.is_current:
            self.notify(
                f"{memory.short_id} is not the current version; edit the current one "
                "(h shows the chain).",
                severity="warning",
            )
            return None
        return memory

    def _update(
        self,
        memory: Memory,
        what: str,
        *,
        content: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        tags: list[str] | None = None,
    ) -> None:
        """Write the given fields as a new version of `memory`, unless each is what the
        memory has already (its own type chosen again, the same tags): that writes nothing."""
        if (
            content in (None, memory.content)
            and type in (None, memory.type)
            and scope in (None, memory.scope)
            and tags in (None, memory.tags)
        ):
            return
        engine = self.engine

        def call() -> Memory:
            return engine.update(memory.id, content=content, type=type, scope=scope, tags=tags)

        self.call_engine(call, lambda new: MemoryUpdated(what, memory, new), name="memories.update")

    @on(MemoryUpdated)
    def _updated(self, message: MemoryUpdated) -> None:
        self._follow = message.new
        new, old = message.new.short_id, message.old.short_id
        self.post_message(Written(f"{message.what}: new version {new} supersedes {old}"))

    def action_edit(self) -> None:
        """New content, as a new version (the old text stays in the history)."""
        self._ask_then_update(
            lambda memory: EditTextModal(
                f"Edit {memory.short_id}",
                memory.content,
                hint="Saving writes a new version; the old one stays in the history.",
            ),
            lambda memory, text: self._update(memory, "Edited", content=text),
        )

    def action_retype(self) -> None:
        self._ask_then_update(
            lambda memory: _choice(f"Type of {memory.short_id}", MemoryType, memory.type),
            lambda memory, value: self._update(memory, f"Type {value}", type=MemoryType(value)),
        )

    def action_rescope(self) -> None:
        self._ask_then_update(
            lambda memory: _choice(f"Scope of {memory.short_id}", Scope, memory.scope),
            lambda memory, value: self._update(memory, f"Scope {value}", scope=Scope(value)),
        )

    def action_retag(self) -> None:
        self._ask_then_update(
            lambda memory: PromptModal(
                f"Tags of {memory.short_id}",
                value=", ".join(memory.tags),
                hint="Comma-separated; empty removes every tag.",
                allow_empty=True,
            ),
            lambda memory, text: self._update(
                memory, "Tagged", tags=[t.strip() for t in text.split(",") if t.strip()]
            ),
        )

    def _ask_then_update(
        self,
        ask: Callable[[Memory], ModalScreen[str | None]],
        update: Callable[[Memory, str], None],
    ) -> None:
        """Ask for a new value of the selected memory's field, then write it as a new
        version; backing out of the question (escape) writes nothing."""
        memory = self._editable()
        if memory is None:
            return

        def answered(value: str | None) -> None:
            if value is not None:
                update(memory, value)

        self.app.push_screen(ask(memory), answered)

    def action_forget(self) -> None:
        """Mark the memory deleted (recall stops serving it; purge removes it for good)."""
        memory = self._target()
        if memory is None:
            return
        if memory.status is MemoryStatus.DELETED:
            self.notify(f"{memory.short_id} is forgotten already.", severity="warning")
            return
        self.forget_after_asking(memory.id, memory.content)

    def action_undo(self) -> None:
        """Undo the last curation action (an edit, a forget, or any other)."""
        self.undo_last()

    def action_history(self) -> None:
        memory = self._target()
        if memory is not None:
            self.post_message(OpenHistory(memory.id))

    def action_why_not(self) -> None:
        """Ask the Recall pane where this memory ranks for its query, and what holds it."""
        memory = self._target()
        if memory is not None:
            self.post_message(ExplainMemory(memory.id))


def _choice(title: str, values: type[StrEnum], current: StrEnum) -> ChoiceModal:
    """Every value of a fixed-choice field (type, scope), the memory's own highlighted."""
    return ChoiceModal(
        title, [(member.value, member.value) for member in values], current=current.value
    )
