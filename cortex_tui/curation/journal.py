"""The curation journal: every curation action records how to undo itself.

An entry keeps what an action changed *as it was before*: memories (`before`), entities
(`entities`, each with the name vector to put it back, since a store cannot read entity
vectors) and relations (`relations`); and the ids of the memories it created. Undo puts
the old payloads back (re-creating a deleted entity or relation) and marks the created
memories deleted, newest action first. The entry is written before the action's own
writes, so a crash in between leaves an entry whose undo is harmless (it restores what is
already there).

Entries written before entities and relations were journalled have only `before`,
`created` and `note`, and undo them as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from cortex_tui.errors import InvalidInputError
from cortex_tui.models import Entity, Memory, MemoryStatus, Relation, new_id
from cortex_tui.store.base import JournalEntry, Store, Vector


class GraphHooks(Protocol):
    """What undo needs from the graph's owner when an entry touched entities."""

    def name_vector(self, name: str) -> Vector:
        """The vector an entity named `name` is stored with (used only when the store
        was re-embedded since the entry was written, so its saved vectors no longer fit)."""
        ...

    def entities_changed(self) -> None:
        """Entities or relations were written behind the graph's back (drop caches)."""
        ...


def record(
    store: Store,
    action: str,
    now: datetime,
    *,
    before: Sequence[Memory] = (),
    created: Sequence[str] = (),
    note: str = "",
    entities: Sequence[tuple[Entity, Vector | None]] = (),
    relations: Sequence[Relation] = (),
    memory_fields: Sequence[str] | None = None,
) -> JournalEntry:
    """Append the entry for an action about to be taken; call it before the writes.

    `entities` are the entities as they were, each with its name vector when the action
    changes that vector or deletes the entity (None: the entity keeps its vector and undo
    only replaces its payload). `relations` are the relations as they were (moved or
    deleted ones). `memory_fields`, when given, limits what undo restores of `before` to
    those fields (e.g. `["entity_ids"]` for an entity merge), so the rest of a memory
    changed since (access counts...) is left alone.
    """
    payload: dict[str, Any] = {
        "before": [m.model_dump(mode="json") for m in before],
        "created": list(created),
        "note": note,
    }
    if entities:
        payload["entities"] = [
            {
                "entity": entity.model_dump(mode="json"),
                "vector": None if vector is None else [float(x) for x in vector],
            }
            for entity, vector in entities
        ]
        if any(vector is not None for _, vector in entities):
            payload["embedder"] = store.meta.embedder
    if relations:
        payload["relations"] = [r.model_dump(mode="json") for r in relations]
    if memory_fields is not None:
        payload["memory_fields"] = list(memory_fields)
    entry = JournalEntry(id=new_id(), created_at=now, action=action, payload=payload)
    store.append_journal(entry)
    return entry


def describe(entry: JournalEntry) -> str:
    """The action and, when it has one, its note (a write-path decision's reason, an
    entity merge's names): what an undo of it reverses, in the user's words."""
    note = entry.payload.get("note")
    return f"{entry.action} ({note})" if note else entry.action


def touches_graph(entry: JournalEntry) -> bool:
    """Whether undoing `entry` writes entities or relations."""
    return bool(entry.payload.get("entities") or entry.payload.get("relations"))


def undo(
    store: Store, now: datetime, count: int = 1, *, graph: GraphHooks | None = None
) -> list[JournalEntry]:
    """Undo the last `count` curation actions; returns the entries undone, newest first.

    `graph` is told when entities or relations were restored (its caches are stale), and
    re-embeds names whose saved vectors were made by another embedder than the store's
    now (a re-embed since); without it such an entry cannot be undone.
    """
    if count < 1:
        raise InvalidInputError("undo needs a count of at least 1")
    entries = store.journal(limit=count)
    if not entries:
        raise InvalidInputError("nothing to undo: the curation journal is empty")
    touched = False
    try:
        for entry in entries:
            touched = touched or touches_graph(entry)
            _undo_one(store, entry, now, graph)
            store.delete_journal([entry.id])
    finally:
        if touched and graph is not None:
            graph.entities_changed()
    return entries


def _undo_one(store: Store, entry: JournalEntry, now: datetime, graph: GraphHooks | None) -> None:
    entities = _saved_entities(store, entry, graph)  # may refuse: before any write
    created = [str(i) for i in entry.payload.get("created", [])]
    if created:
        retired = [
            m.model_copy(update={"status": MemoryStatus.DELETED, "updated_at": now})
            for m in store.get_memories(created)
        ]
        if retired:
            store.update_memories(retired)
    _restore_entities(store, entities)
    relations = [Relation.model_validate(raw) for raw in entry.payload.get("relations", [])]
    if relations:
        store.upsert_relations(relations)
    before = [Memory.model_validate(raw) for raw in entry.payload.get("before", [])]
    if before:
        current = {m.id: m for m in store.get_memories([m.id for m in before])}
        fields = entry.payload.get("memory_fields")
        restored = [
            m
            if fields is None
            else current[m.id].model_copy(update={f: getattr(m, f) for f in fields})
            for m in before
            if m.id in current
        ]
        if restored:
            store.update_memories(restored)


def _saved_entities(
    store: Store, entry: JournalEntry, graph: GraphHooks | None
) -> list[tuple[Entity, Vector | None]]:
    saved = entry.payload.get("entities", [])
    if not saved:
        return []
    stale = entry.payload.get("embedder", store.meta.embedder) != store.meta.embedder
    if stale and graph is None:
        raise InvalidInputError(
            f"cannot undo {entry.action}: its entity vectors were made by "
            f"{entry.payload.get('embedder')}, the store now uses {store.meta.embedder}"
        )
    result: list[tuple[Entity, Vector | None]] = []
    for raw in saved:
        entity = Entity.model_validate(raw["entity"])
        vector: Vector | None = raw.get("vector")
        if vector is not None and stale and graph is not None:
            vector = graph.name_vector(entity.name)
        result.append((entity, vector))
    return result


def _restore_entities(store: Store, saved: list[tuple[Entity, Vector | None]]) -> None:
    """Put entities back as they were. Mentions an entity gained after the action (a
    memory captured since, linked to it) and that the action did not bring are kept,
    so undo does not orphan a newer memory's link. An entity the action only updated and
    that no longer exists is left gone (there is no vector to re-create it with)."""
    if not saved:
        return
    brought = {m for entity, _ in saved for m in entity.memory_ids}
    current = {e.id: e for e in store.get_entities([entity.id for entity, _ in saved])}
    updated: list[Entity] = []
    upserted: list[Entity] = []
    vectors: list[Vector] = []
    for entity, vector in saved:
        now_entity = current.get(entity.id)
        restored = entity
        if now_entity is not None:
            gained = [m for m in now_entity.memory_ids if m not in brought]
            restored = entity.model_copy(update={"memory_ids": [*entity.memory_ids, *gained]})
        if vector is not None:
            upserted.append(restored)
            vectors.append(vector)
        elif now_entity is not None:
            updated.append(restored)
    if upserted:
        store.upsert_entities(upserted, vectors)
    if updated:
        store.update_entities(updated)
