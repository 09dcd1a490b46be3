"""The neighbourhood of an entity: what is connected to it, how, since when, and which
memories say so.

The walk follows closed relations too, unlike the recall graph channel (which ranks by
what is true now): a curator asking "what is connected to Alice" wants to see that she
worked at Initech before Globex. Each closed edge is marked, so nothing is mistaken for
current.
"""

from __future__ import annotations

from cortex_tui.graph.views import EdgeDirection, NeighbourEdge, Neighbourhood, NeighbourNode
from cortex_tui.models import Entity, Relation
from cortex_tui.store.base import Store


def neighbourhood(store: Store, center: Entity, hops: int) -> Neighbourhood:
    """Breadth-first over relations from `center`, up to `hops` relations away."""
    distance: dict[str, int] = {center.id: 0}
    via: dict[str, str | None] = {center.id: None}
    entities: dict[str, Entity] = {center.id: center}
    relations: dict[str, Relation] = {}
    frontier = [center.id]
    # One more round than `hops` fetches the edges among the outermost nodes.
    for depth in range(1, hops + 2):
        if not frontier:
            break
        found = sorted(
            store.relations_of(frontier, current_only=False), key=lambda r: (r.valid_from, r.id)
        )
        relations.update((r.id, r) for r in found)
        if depth > hops:
            break
        reached: dict[str, str] = {}
        for relation in found:
            for near, far in (
                (relation.subject_id, relation.object_id),
                (relation.object_id, relation.subject_id),
            ):
                if distance.get(near) == depth - 1 and far not in distance:
                    reached.setdefault(far, near)
        # An id a relation names but no entity has (a dangling edge) is skipped.
        for entity in store.get_entities(list(reached)):
            entities[entity.id] = entity
            distance[entity.id] = depth
            via[entity.id] = reached[entity.id]
        frontier = [entity_id for entity_id in reached if entity_id in entities]
    return Neighbourhood(
        center=center,
        hops=hops,
        nodes=_nodes(store, entities, distance, via),
        edges=[
            NeighbourEdge(
                relation=r,
                direction=_direction(distance[r.subject_id], distance[r.object_id]),
                current=r.valid_to is None,
            )
            for r in relations.values()
            if r.subject_id in entities and r.object_id in entities
        ],
    )


def _nodes(
    store: Store,
    entities: dict[str, Entity],
    distance: dict[str, int],
    via: dict[str, str | None],
) -> list[NeighbourNode]:
    """Nodes nearest first (then by name), each with its mentioning memories."""
    mentioned = list(dict.fromkeys(m for e in entities.values() for m in e.memory_ids))
    current = {m.id: m for m in store.get_memories(mentioned) if m.is_current}
    ordered = sorted(entities.values(), key=lambda e: (distance[e.id], e.name.casefold(), e.id))
    return [
        NeighbourNode(
            entity=entity,
            hops=distance[entity.id],
            via=via[entity.id],
            memory_ids=entity.memory_ids,
            memories=[current[m] for m in entity.memory_ids if m in current],
        )
        for entity in ordered
    ]


def _direction(subject_hops: int, object_hops: int) -> EdgeDirection:
    if subject_hops < object_hops:
        return "out"
    if subject_hops > object_hops:
        return "in"
    return "across"
