"""`cortex-tui entities ...`: browse and curate the entity graph.

Every action prints plain text, or the service's own models under --json.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from cortex_tui.cli.args import OneLineParser, Subparsers, actions_of
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import InvalidInputError
from cortex_tui.graph.views import NeighbourEdge, Neighbourhood, NeighbourNode
from cortex_tui.models import Entity, EntityType, Memory, Relation

ENTITY_TYPES = [t.value for t in EntityType]
MAX_HOPS = 4
MEMORIES_SHOWN = 3
SNIPPET_CHARS = 70


def register(sub: Subparsers, common: OneLineParser) -> None:
    parser = sub.add_parser(
        "entities", help="the entity graph: list, show, search, merge, alias, rename"
    )
    # --json sits on each action, not on `entities`: argparse would let the action's
    # default overwrite a flag given before the action's name.
    actions = actions_of(parser, "entities_action")
    p = actions.add_parser("list", parents=[common], help="entities, most mentioned first")
    p.add_argument("--type", choices=ENTITY_TYPES)
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--offset", type=int, default=0)

    p = actions.add_parser(
        "show", parents=[common], help="an entity's relations and memories, to N hops"
    )
    p.add_argument("entity", help="name, alias, id or id prefix")
    p.add_argument("--hops", type=int, default=2, help=f"0 to {MAX_HOPS} (default 2)")

    p = actions.add_parser("search", parents=[common], help="entities whose names resemble TEXT")
    p.add_argument("text")
    p.add_argument("--limit", type=int, default=10)

    p = actions.add_parser(
        "merge", parents=[common], help="fold SOURCE into INTO (names, mentions, relations)"
    )
    p.add_argument("source", help="the entity that disappears")
    p.add_argument("into", help="the entity that stays")

    p = actions.add_parser("alias", parents=[common], help="add another name for an entity")
    p.add_argument("entity")
    p.add_argument("alias")

    p = actions.add_parser(
        "rename", parents=[common], help="rename an entity (the old name stays an alias)"
    )
    p.add_argument("entity")
    p.add_argument("name")


def cmd_entities(ctx: CommandContext) -> int:
    return _ACTIONS[ctx.args.entities_action](ctx)


def _list(ctx: CommandContext) -> int:
    a = ctx.args
    if a.limit < 1 or a.offset < 0:
        raise InvalidInputError("--limit must be at least 1 and --offset at least 0")
    page = ctx.engine.graph.list_entities(
        EntityType(a.type) if a.type else None, limit=a.limit, offset=a.offset
    )
    lines = [_entity_line(e) for e in page.entities]
    shown = f"{len(page.entities)} of {page.total} entities"
    more = a.offset + len(page.entities) < page.total
    lines.append(f"({shown}; next page: --offset {a.offset + a.limit})" if more else f"({shown})")
    ctx.emit(page, "\n".join(lines))
    return 0


def _show(ctx: CommandContext) -> int:
    hops = ctx.args.hops
    if not 0 <= hops <= MAX_HOPS:
        raise InvalidInputError(f"--hops must be from 0 to {MAX_HOPS}")
    view = ctx.engine.graph.neighbourhood(ctx.args.entity, hops)
    ctx.emit(view, neighbourhood_text(view))
    return 0


def _search(ctx: CommandContext) -> int:
    if ctx.args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    matches = ctx.engine.graph.search(ctx.args.text, ctx.args.limit)
    lines = [
        f"{m.score:5.1f}  {_entity_line(m.entity)}"
        + (f"  (matched {m.matched!r})" if m.matched != m.entity.name else "")
        for m in matches
    ]
    ctx.emit(matches, "\n".join(lines) if lines else "no entity name resembles that")
    return 0


def _merge(ctx: CommandContext) -> int:
    graph = ctx.engine.graph
    source = graph.get(ctx.args.source)
    merged = graph.merge(source.id, ctx.args.into)
    ctx.emit(
        merged,
        f"merged {source.name!r} into {merged.name!r} ({merged.id[:8]}): "
        f"{len(merged.memory_ids)} memories, aliases: {', '.join(merged.aliases) or '-'}",
    )
    return 0


def _alias(ctx: CommandContext) -> int:
    entity = ctx.engine.graph.add_alias(ctx.args.entity, ctx.args.alias)
    ctx.emit(entity, f"{entity.name!r} ({entity.id[:8]}) is also: {', '.join(entity.aliases)}")
    return 0


def _rename(ctx: CommandContext) -> int:
    graph = ctx.engine.graph
    old = graph.get(ctx.args.entity)
    entity = graph.rename(old.id, ctx.args.name)
    ctx.emit(
        entity,
        f"renamed {old.name!r} to {entity.name!r} ({entity.id[:8]}); the old name stays an alias",
    )
    return 0


_ACTIONS: dict[str, Callable[[CommandContext], int]] = {
    "list": _list,
    "show": _show,
    "search": _search,
    "merge": _merge,
    "alias": _alias,
    "rename": _rename,
}

HANDLERS: dict[str, Callable[[CommandContext], int]] = {"entities": cmd_entities}


def _entity_line(entity: Entity) -> str:
    aka = f"  (aka {', '.join(entity.aliases)})" if entity.aliases else ""
    count = len(entity.memory_ids)
    return (
        f"{entity.id[:8]}  {entity.type.value:<8} {entity.name}{aka}  "
        f"· {count} {'memory' if count == 1 else 'memories'}"
    )


def _node_title(entity: Entity) -> str:
    return f"{entity.name} [{entity.type.value}] {entity.id[:8]}"


def neighbourhood_text(view: Neighbourhood) -> str:
    """The neighbourhood as a tree from the center: each node under the node it was
    reached from, with the relations between the two read from the parent
    (`─leads→` the parent leads it, `←leads─` it leads the parent), their validity and
    the memories that mention the node. Relations that are not tree branches follow."""
    children: dict[str | None, list[NeighbourNode]] = defaultdict(list)
    for node in view.nodes[1:]:
        children[node.via].append(node)
    between: dict[frozenset[str], list[NeighbourEdge]] = defaultdict(list)
    for edge in view.edges:
        between[frozenset((edge.relation.subject_id, edge.relation.object_id))].append(edge)
    center = view.nodes[0]

    def stem(node: NeighbourNode) -> str:
        """What continues below a node's title: its own branch line, if it has any."""
        return "│  " if children[node.entity.id] else "   "

    lines = [_node_title(center.entity), *_memory_lines(center, stem(center))]

    def walk(parent: str, prefix: str) -> None:
        kids = children[parent]
        for index, kid in enumerate(kids):
            last = index == len(kids) - 1
            edges = [e.relation for e in between.pop(frozenset((parent, kid.entity.id)), [])]
            arrows = " / ".join(dict.fromkeys(_arrow(r, parent) for r in edges))
            validity = "; ".join(_validity(r) for r in edges)
            lines.append(
                f"{prefix}{'└─' if last else '├─'} {arrows} {_node_title(kid.entity)} · {validity}"
            )
            inner = prefix + ("   " if last else "│  ")
            lines.extend(_memory_lines(kid, inner + stem(kid)))
            walk(kid.entity.id, inner)

    walk(center.entity.id, "")
    names = {node.entity.id: node.entity.name for node in view.nodes}
    others = [edge.relation for edges in between.values() for edge in edges]
    if others:
        lines.append("other relations among these:")
        lines += [
            f"   {names[r.subject_id]} ─{r.predicate}→ {names[r.object_id]} · {_validity(r)}"
            for r in others
        ]
    return "\n".join(lines)


def _arrow(relation: Relation, parent: str) -> str:
    p = relation.predicate
    return f"─{p}→" if relation.subject_id == parent else f"←{p}─"


def _validity(relation: Relation) -> str:
    since = f"{relation.valid_from:%Y-%m-%d}"
    if relation.valid_to is None:
        return f"since {since}"
    return f"{since} → {relation.valid_to:%Y-%m-%d} (ended)"


def _memory_lines(node: NeighbourNode, prefix: str) -> list[str]:
    """Up to MEMORIES_SHOWN current mentioning memories as short id + snippet; the rest
    and the older versions counted."""
    lines = [f"{prefix}· {m.short_id} {_snippet(m)}" for m in node.memories[:MEMORIES_SHOWN]]
    more = len(node.memories) - MEMORIES_SHOWN
    older = len(node.memory_ids) - len(node.memories)
    notes: list[str] = []
    if more > 0:
        notes.append(f"+{more} more")
    if older > 0:
        notes.append(f"{older} older or forgotten")
    if notes:
        lines.append(f"{prefix}· ({', '.join(notes)})")
    return lines


def _snippet(memory: Memory) -> str:
    text = " ".join(memory.content.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
