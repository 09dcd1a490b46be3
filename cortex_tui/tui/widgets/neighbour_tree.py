"""An entity's neighbourhood as a tree: who is connected to whom, by what, since when.

The graph service answers with nodes (each knowing the node one hop nearer the centre it
was reached from, `via`) and edges. The tree hangs each node under its `via` and labels
it with the relations that connect the two: predicate, direction relative to the parent
(`─works_at→` or `←leads─`) and validity, current relations in `$graph-edge`, ended ones
in `$graph-edge-expired`. Relations that are not a node's link to its parent (a
shortcut, or two nodes equally far from the centre) become leaves under the nearer end,
so no relation of the neighbourhood is hidden.

Labels are drawn at render time from the node's data with the widget's component
styles, so a theme change recolours them and entity names are never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from cortex_tui.graph.views import NeighbourEdge, Neighbourhood, NeighbourNode


@dataclass(frozen=True)
class TreeItem:
    """A tree row: the entity it shows and the relations linking it to its parent row."""

    node: NeighbourNode
    parent_id: str | None
    edges: tuple[NeighbourEdge, ...]


def _month(edge: NeighbourEdge) -> str:
    relation = edge.relation
    start = relation.valid_from.strftime("%Y-%m")
    if relation.valid_to is None:
        return f"since {start}"
    return f"{start} → {relation.valid_to.strftime('%Y-%m')}"


def tree_items(hood: Neighbourhood) -> list[TreeItem]:
    """Every row below the centre, parents before children (nearest first)."""
    by_id = {n.entity.id: n for n in hood.nodes}
    linking: dict[str, list[NeighbourEdge]] = {}
    extra: list[NeighbourEdge] = []
    for edge in hood.edges:
        ends = {edge.relation.subject_id, edge.relation.object_id}
        child = next(
            (
                n
                for n in (by_id.get(edge.relation.subject_id), by_id.get(edge.relation.object_id))
                if n is not None and n.via is not None and {n.entity.id, n.via} == ends
            ),
            None,
        )
        if child is None:
            extra.append(edge)
        else:
            linking.setdefault(child.entity.id, []).append(edge)
    items = [
        TreeItem(node, node.via, tuple(linking.get(node.entity.id, [])))
        for node in sorted(hood.nodes, key=lambda n: (n.hops, n.entity.name.casefold()))
        if node.via is not None
    ]
    for edge in extra:
        subject, obj = by_id.get(edge.relation.subject_id), by_id.get(edge.relation.object_id)
        if subject is None or obj is None:
            continue
        near, far = (obj, subject) if obj.hops < subject.hops else (subject, obj)
        items.append(TreeItem(far, near.entity.id, (edge,)))
    return items


class NeighbourTree(Tree[TreeItem]):
    """The neighbourhood of one entity; enter selects a row (the pane re-centres on it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "expand", "Expand", show=False),
        Binding("left", "collapse", "Collapse", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "neighbour-tree--current",
        "neighbour-tree--past",
        "neighbour-tree--meta",
    }

    DEFAULT_CSS = """
    NeighbourTree > .neighbour-tree--current { color: $graph-edge; }
    NeighbourTree > .neighbour-tree--past { color: $graph-edge-expired; text-style: italic; }
    NeighbourTree > .neighbour-tree--meta { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.auto_expand = False
        self.show_root = True

    def show(self, hood: Neighbourhood) -> None:
        """Replace the tree with `hood`: centre expanded, the rest one keypress away."""
        centre = next(
            (n for n in hood.nodes if n.entity.id == hood.center.id),
            NeighbourNode(entity=hood.center, hops=0, memory_ids=hood.center.memory_ids),
        )
        self.reset("", TreeItem(centre, None, ()))
        parents: dict[str, TreeNode[TreeItem]] = {hood.center.id: self.root}
        items = tree_items(hood)
        has_children = {item.parent_id for item in items}
        for item in items:
            parent = parents.get(item.parent_id or "")
            if parent is None:
                continue
            entity_id = item.node.entity.id
            expandable = entity_id in has_children and entity_id not in parents
            added = parent.add("", item, allow_expand=expandable)
            if expandable:
                parents[entity_id] = added
        self.root.expand()
        self.move_cursor(self.root)

    def render_label(self, node: TreeNode[TreeItem], base_style: Style, style: Style) -> Text:
        item = node.data
        if item is None:
            return super().render_label(node, base_style, style)
        label = self._label_text(item)
        label.stylize(style)
        prefix = ""
        if node.allow_expand:
            prefix = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        return Text.assemble((prefix, base_style), label)

    def _label_text(self, item: TreeItem) -> Text:
        meta = self.get_component_rich_style("neighbour-tree--meta", partial=True)
        entity = item.node.entity
        parts: list[Text] = []
        for edge in item.edges:
            style = self.get_component_rich_style(
                "neighbour-tree--current" if edge.current else "neighbour-tree--past",
                partial=True,
            )
            predicate = edge.relation.predicate
            outward = edge.relation.object_id == entity.id
            arrow = f"─{predicate}→ " if outward else f"←{predicate}─ "
            parts.append(Text.assemble((arrow, style), (f"({_month(edge)}) ", meta)))
        mentions = len(item.node.memory_ids)
        return Text.assemble(
            *parts,
            (entity.name, "bold"),
            (f"  {entity.type.value} · {mentions} mention{'s' * (mentions != 1)}", meta),
        )

    def action_expand(self) -> None:
        if self.cursor_node is not None:
            self.cursor_node.expand()

    def action_collapse(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.allow_expand:
            node.collapse()
        elif node.parent is not None:
            self.move_cursor(node.parent)
