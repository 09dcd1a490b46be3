"""The Graph pane: find an entity, see what it is connected to, and tidy the names.

Recall's graph channel walks this graph, so a duplicate entity ("Tomas" and "Tomás
Herrera") or a missing alias silently costs recall. Here a person searches entities
fuzzily (rapidfuzz, in the engine), sees the neighbourhood up to two hops with each
relation's predicate, direction and validity, reads the memories that mention each
node, and fixes names: merge one entity into another, add an alias, rename, each undone
by `u` (the curation journal, shared with the other panes). Enter on a neighbour
re-centres the graph on it; the breadcrumb walks back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static, Tree
from textual.widgets.option_list import Option

from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import NotFoundError
from cortex_tui.graph.views import EntityMatch, Neighbourhood, NeighbourNode
from cortex_tui.models import Entity, Memory
from cortex_tui.store.base import JournalEntry
from cortex_tui.tui.formatting import age, undone_summary
from cortex_tui.tui.panes.base import Answered, OpenHistory, Pane, Written, titled
from cortex_tui.tui.widgets.choice import ChoiceModal
from cortex_tui.tui.widgets.confirm import ConfirmModal
from cortex_tui.tui.widgets.neighbour_tree import NeighbourTree, TreeItem
from cortex_tui.tui.widgets.prompt import PromptModal
from cortex_tui.tui.widgets.spaced_options import spaced

HOPS = 2
LIST_LIMIT = 40
SEARCH_LIMIT = 20


@dataclass(frozen=True)
class GraphView:
    hood: Neighbourhood
    now: datetime


@dataclass(frozen=True)
class Undone:
    """The entries an undo reversed, and the walk's entities that still exist (fresh)."""

    entries: list[JournalEntry]
    trail: list[Entity]


def match_prompt(entity: Entity, matched: str | None = None) -> Content:
    """An entity in the search list: name, type, mentions, and the alias that matched."""
    mentions = len(entity.memory_ids)
    parts = [
        Content.styled(entity.name, "bold"),
        Content.styled(f"\n{entity.type.value} · {mentions} mentions", "$text-muted"),
    ]
    if matched and matched != entity.name:
        parts.append(Content.styled(f" · ≈ {matched}", "$text-muted"))
    return Content("").join(parts)


def memory_prompt(memory: Memory, now: datetime) -> Content:
    return Content.assemble(
        (f"{memory.type.value} · {age(memory.created_at, now)} · {memory.short_id}", "$text-muted"),
        "\n",
        Content(memory.content),
    )


class MatchesFound(Answered[list[EntityMatch]]):
    """Entities matching the search (or the most mentioned, for an empty one)."""


class NeighbourhoodLoaded(Answered[GraphView]):
    """The centre entity's neighbourhood."""


class GraphUndone(Answered[Undone]):
    """A curation step undone, and what is left of the walk."""


@dataclass
class MergeCandidates(Message, bubble=False):
    """The entities `source` may be folded into."""

    source: Entity
    matches: list[EntityMatch]


@dataclass
class EntityChanged(Message, bubble=False):
    """An entity renamed or merged: `before` is now `after` (for a merge, the
    entity it was folded into); `summary` says so."""

    before: Entity
    after: Entity
    summary: str


class GraphPane(Pane):
    """Entity search on the left; the centre's neighbourhood and its mentions on the right."""

    pane_id = "graph"
    title = "Graph"
    key = "4"
    purpose = "Graph links the people, projects and tools your memories mention."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search", id="graph.search"),
        Binding("backspace,b", "back", "Back", id="graph.back"),
        Binding("m", "merge_into", "Merge into…", id="graph.merge"),
        Binding("a", "add_alias", "Add alias", id="graph.alias"),
        Binding("n", "rename", "Rename", id="graph.rename"),
        Binding("u", "undo", "Undo", id="graph.undo"),
        Binding("h", "history", "Memory history", id="graph.history"),
    ]

    DEFAULT_CSS = """
    GraphPane { padding: 0 1; }
    GraphPane #graph-left { dock: left; width: 32; margin-right: 1; }
    GraphPane #graph-search { margin: 0 1; }
    GraphPane #graph-right { width: 1fr; }
    GraphPane #graph-breadcrumb { height: 1; padding: 0 1; }
    GraphPane OptionList, GraphPane NeighbourTree { border: round $panel-lighten-2; }
    GraphPane OptionList:focus, GraphPane NeighbourTree:focus { border: round $accent; }
    GraphPane #graph-matches { height: 1fr; }
    GraphPane NeighbourTree { height: 1fr; }
    GraphPane #graph-memories { height: 12; }
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._trail: list[Entity] = []
        self._hood: Neighbourhood | None = None
        self._now: datetime | None = None
        self._matches: list[EntityMatch] = []

    def compose(self) -> ComposeResult:
        # The tree comes first in the DOM (the search column is docked left), so it is what
        # takes focus when the pane is shown and the pane's keys work at once.
        with Vertical(id="graph-right"):
            yield Static(id="graph-breadcrumb")
            yield titled(NeighbourTree(id="graph-tree"), f"Neighbourhood, {HOPS} hops")
            yield titled(OptionList(id="graph-memories"), "Mentioned in")
        with Vertical(id="graph-left"):
            yield Input(placeholder="/ search entities", id="graph-search", compact=True)
            yield titled(OptionList(id="graph-matches"), "Entities")

    # --- data ---------------------------------------------------------------------------

    def reload(self) -> None:
        self._search(self.query_one("#graph-search", Input).value)
        if self._trail:
            self._fetch(self._trail[-1].id)

    @property
    def centre(self) -> Entity | None:
        return self._trail[-1] if self._trail else None

    def _search(self, text: str) -> None:
        graph = self.engine.graph
        if text.strip():
            self.call_engine(
                lambda: graph.search(text, limit=SEARCH_LIMIT),
                MatchesFound,
                name="graph.search",
            )
        else:
            self.call_engine(
                lambda: [
                    EntityMatch(entity=e, score=100.0, matched=e.name)
                    for e in graph.list_entities(limit=LIST_LIMIT).entities
                ],
                MatchesFound,
                name="graph.search",
            )

    @on(MatchesFound)
    def _show_matches(self, message: MatchesFound) -> None:
        matches = message.result
        self._matches = matches
        options = self.query_one("#graph-matches", OptionList)
        options.set_options(
            Option(match_prompt(m.entity, m.matched), id=m.entity.id) for m in matches
        )
        if matches:
            options.highlighted = 0
        if not self._trail and matches:
            self.centre_on(matches[0].entity, fresh=True)

    def centre_on(self, entity: Entity, *, fresh: bool = False) -> None:
        """Walk to `entity` (the breadcrumb grows), or start a new walk when `fresh`."""
        if fresh:
            self._trail = [entity]
        elif not self._trail or self._trail[-1].id != entity.id:
            self._trail.append(entity)
        self._fetch(entity.id)

    def _fetch(self, entity_id: str) -> None:
        engine = self.engine
        self.call_engine(
            lambda: GraphView(engine.graph.neighbourhood(entity_id, hops=HOPS), engine.now()),
            NeighbourhoodLoaded,
            name="graph.hood",
        )

    @on(NeighbourhoodLoaded)
    def _show_hood(self, message: NeighbourhoodLoaded) -> None:
        view = message.result
        self._hood, self._now = view.hood, view.now
        if self._trail:
            self._trail[-1] = view.hood.center
        self._show_breadcrumb()
        tree = self.query_one(NeighbourTree)
        tree.show(view.hood)
        tree.border_subtitle = (
            f"{len(view.hood.nodes) - 1} neighbours · {len(view.hood.edges)} relations"
        )
        root = tree.root.data
        self._show_memories(root.node if root else None)

    def _show_breadcrumb(self) -> None:
        parts: list[Content] = []
        for index, entity in enumerate(self._trail):
            last = index == len(self._trail) - 1
            parts.append(Content.styled(entity.name, "bold $accent" if last else "$text-muted"))
        crumb = Content(" › ").join(parts)
        if len(self._trail) > 1:
            crumb = Content.assemble(crumb, ("   b back", "$text-muted"))
        self.query_one("#graph-breadcrumb", Static).update(crumb)

    def _show_memories(self, node: NeighbourNode | None) -> None:
        memories = self.query_one("#graph-memories", OptionList)
        if node is None or self._now is None:
            memories.clear_options()
            return
        now = self._now
        memories.set_options(
            spaced(Option(memory_prompt(memory, now), id=memory.id) for memory in node.memories)
        )
        memories.highlighted = 0 if node.memories else None
        older = len(node.memory_ids) - len(node.memories)
        memories.border_title = f"Mentioned in · {node.entity.name}"
        memories.border_subtitle = f"+{older} older or forgotten" if older > 0 else ""

    @on(Input.Changed, "#graph-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._search(event.value)

    @on(Input.Submitted, "#graph-search")
    def _search_submitted(self) -> None:
        self.query_one("#graph-matches", OptionList).focus()

    @on(OptionList.OptionSelected, "#graph-matches")
    def _match_selected(self, event: OptionList.OptionSelected) -> None:
        entity = next((m.entity for m in self._matches if m.entity.id == event.option.id), None)
        if entity is not None:
            self.centre_on(entity, fresh=True)
            self.query_one(NeighbourTree).focus()

    @on(Tree.NodeHighlighted, "#graph-tree")
    def _node_highlighted(self, event: Tree.NodeHighlighted[TreeItem]) -> None:
        item = event.node.data
        if item is not None:
            self._show_memories(item.node)

    @on(Tree.NodeSelected, "#graph-tree")
    def _node_selected(self, event: Tree.NodeSelected[TreeItem]) -> None:
        item = event.node.data
        if item is not None and event.node is not event.node.tree.root:
            self.centre_on(item.node.entity)

    @property
    def selected_entity(self) -> Entity | None:
        """The entity under the tree cursor (the centre when the tree is untouched)."""
        node = self.query_one(NeighbourTree).cursor_node
        if node is None or node.data is None:
            return self.centre
        return node.data.node.entity

    # --- actions ------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#graph-search", Input).focus()

    def action_back(self) -> None:
        """Return to the entity before the current centre."""
        if len(self._trail) < 2:
            self.notify("This is where the walk started.", severity="information")
            return
        self._trail.pop()
        self._fetch(self._trail[-1].id)

    def action_add_alias(self) -> None:
        entity = self.selected_entity
        if entity is None:
            return
        graph = self.engine.graph

        def answered(alias: str | None) -> None:
            if alias:
                self.call_engine(
                    lambda: graph.add_alias(entity.id, alias),
                    lambda e: Written(f"{e.name} is also called {alias}"),
                    name="graph.alias",
                )

        aliases = ", ".join(entity.aliases) or "none yet"
        self.app.push_screen(
            PromptModal(f"Add an alias to {entity.name}", hint=f"Aliases: {aliases}"), answered
        )

    def action_rename(self) -> None:
        entity = self.selected_entity
        if entity is None:
            return
        graph = self.engine.graph

        def answered(name: str | None) -> None:
            if name and name != entity.name:
                self.call_engine(
                    lambda: graph.rename(entity.id, name),
                    lambda e: EntityChanged(entity, e, f"Renamed {entity.name} to {e.name}"),
                    name="graph.rename",
                )

        self.app.push_screen(
            PromptModal(
                f"Rename {entity.name}",
                value=entity.name,
                hint="The old name stays as an alias, so memories that use it still resolve.",
            ),
            answered,
        )

    @on(EntityChanged)
    def _entity_changed(self, message: EntityChanged) -> None:
        before, after = message.before, message.after
        if before.id == after.id:  # renamed
            self._trail = [after if e.id == after.id else e for e in self._trail]
        else:  # merged: the walk goes on from the entity it became
            self._trail = [e for e in self._trail if e.id != before.id]
            self.centre_on(after)
        self.post_message(Written(message.summary))

    def action_merge_into(self) -> None:
        """Fold the selected entity into another one, chosen by a fuzzy search."""
        source = self.selected_entity
        if source is None:
            return
        graph = self.engine.graph

        def asked(text: str | None) -> None:
            if text:
                self.call_engine(
                    lambda: graph.search(text, limit=SEARCH_LIMIT),
                    lambda matches: MergeCandidates(source, matches),
                    name="graph.merge.search",
                )

        self.app.push_screen(
            PromptModal(
                f"Merge {source.name} into which entity?", hint="Type part of its name or alias."
            ),
            asked,
        )

    @on(MergeCandidates)
    def _choose_merge_target(self, message: MergeCandidates) -> None:
        source = message.source
        candidates = [m for m in message.matches if m.entity.id != source.id]
        if not candidates:
            self.notify("No other entity matches that name.", severity="warning")
            return
        self.app.push_screen(
            ChoiceModal(
                f"Merge {source.name} into…",
                [(m.entity.id, match_prompt(m.entity, m.matched)) for m in candidates],
            ),
            lambda target_id: self._confirm_merge(source, target_id, candidates),
        )

    def _confirm_merge(
        self, source: Entity, target_id: str | None, candidates: list[EntityMatch]
    ) -> None:
        target = next((m.entity for m in candidates if m.entity.id == target_id), None)
        if target is None:
            return
        body = Content.assemble(
            ("Merge ", "bold"),
            (source.name, "bold $accent"),
            (" into ", "bold"),
            (target.name, "bold $accent"),
            f"\n\n{source.name} becomes an alias of {target.name}; its "
            f"{len(source.memory_ids)} mentions and its relations move to "
            f"{target.name}.\nu undoes the merge.",
        )
        graph = self.engine.graph
        self.call_engine_if_confirmed(
            ConfirmModal("Merge entities?", body, confirm="Merge"),
            lambda: graph.merge(source.id, target.id),
            lambda survivor: EntityChanged(
                source, survivor, f"Merged {source.name} into {survivor.name}"
            ),
            name="graph.merge",
        )

    def action_undo(self) -> None:
        """Undo the last curation action (a merge, alias or rename here, or any other)."""
        engine = self.engine
        trail = [e.id for e in self._trail]

        def undo() -> Undone:
            entries = engine.curation.undo(1)
            return Undone(entries, _existing(engine, trail))

        # Not exclusive: each press undoes one action, and each is reported.
        self.call_engine(undo, GraphUndone, name="graph.undo", exclusive=False)

    @on(GraphUndone)
    def _undone(self, message: GraphUndone) -> None:
        undone = message.result
        # The walk keeps the entities that still exist, with their names as they are now;
        # with none left, reload centres on the first entity of the list.
        self._trail = undone.trail
        if not self._trail:
            self._hood = None
        self.post_message(Written(undone_summary(undone.entries)))

    def action_history(self) -> None:
        option = self.query_one("#graph-memories", OptionList).highlighted_option
        if option is None or option.id is None:
            self.notify("Pick a memory in 'Mentioned in' first.", severity="warning")
            return
        self.post_message(OpenHistory(option.id))


def _existing(engine: Engine, ids: list[str]) -> list[Entity]:
    """The entities among `ids` that still exist, as they are now, in order."""
    found: list[Entity] = []
    for entity_id in ids:
        try:
            found.append(engine.graph.get(entity_id))
        except NotFoundError:
            continue
    return found
