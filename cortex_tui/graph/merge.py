"""Merging two entities that turned out to be one ("Postgres" and "PostgreSQL").

Writes go survivor first, source last: the survivor gains the source's names and
mentions, relations and memories are re-pointed, and only then is the source deleted. A
crash in between leaves both entities with the links duplicated, never a link lost, and
running the merge again finishes it. `GraphService.merge` journals the state before (the
source with its name vector, its relations, its memories' links) ahead of these writes,
so undo can put it back: a merge writes nothing else than the two entities, the source's
relations and the memories that mention the source.
"""

from __future__ import annotations

from cortex_tui.graph.index import normalise_name
from cortex_tui.graph.names import entity_keys
from cortex_tui.models import Entity, EntityType, Relation
from cortex_tui.store.base import Store


def merge_entities(store: Store, source: Entity, into: Entity) -> Entity:
    """Fold `source` into `into` and delete `source`; returns the updated `into`."""
    survivor = _absorb(into, source)
    store.update_entities([survivor])
    _repoint_relations(store, source.id, into.id)
    memories = store.get_memories(source.memory_ids)
    if memories:
        store.update_memories(
            [
                m.model_copy(
                    update={
                        "entity_ids": list(
                            dict.fromkeys(into.id if e == source.id else e for e in m.entity_ids)
                        )
                    }
                )
                for m in memories
            ]
        )
    store.delete_entities([source.id])
    return survivor


def _absorb(into: Entity, source: Entity) -> Entity:
    """`into` with the source's name and aliases as aliases (new spellings only), its
    mentions added, and its type when `into`'s is unknown."""
    keys = set(entity_keys(into))
    aliases = list(into.aliases)
    for name in (source.name, *source.aliases):
        key = normalise_name(name)
        if key and key not in keys:
            keys.add(key)
            aliases.append(name)
    memory_ids = list(dict.fromkeys([*into.memory_ids, *source.memory_ids]))
    kind = source.type if into.type is EntityType.OTHER else into.type
    return into.model_copy(update={"aliases": aliases, "memory_ids": memory_ids, "type": kind})


def _repoint_relations(store: Store, source_id: str, into_id: str) -> None:
    """Relations of the source now name the survivor. One that would relate the survivor
    to itself (the two were related, e.g. "same_as") or repeat one the survivor already
    has (both current, or the same validity) is dropped: it would state nothing."""
    touched = store.relations_of([source_id, into_id], current_only=False)
    seen = {_fact(r) for r in touched if source_id not in (r.subject_id, r.object_id)}
    keep: list[Relation] = []
    drop: list[str] = []
    for relation in sorted(touched, key=lambda r: (r.valid_from, r.id)):
        if source_id not in (relation.subject_id, relation.object_id):
            continue
        moved = relation.model_copy(
            update={
                "subject_id": into_id if relation.subject_id == source_id else relation.subject_id,
                "object_id": into_id if relation.object_id == source_id else relation.object_id,
            }
        )
        if moved.subject_id == moved.object_id or _fact(moved) in seen:
            drop.append(relation.id)
            continue
        seen.add(_fact(moved))
        keep.append(moved)
    if keep:
        store.upsert_relations(keep)
    if drop:
        store.delete_relations(drop)


def _fact(r: Relation) -> tuple[object, ...]:
    validity = (r.valid_from, r.valid_to) if r.valid_to is not None else "current"
    return (r.subject_id, r.predicate, r.object_id, validity)
