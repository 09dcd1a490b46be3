"""Linking one memory into the graph: its entities, their mentions, its relations.

Links are only ever added: a re-mention adds the memory to an entity and the entity to
the memory, and never drops what an earlier memory linked, so linking is idempotent and
the order memories arrive in does not matter. Changes are collected first and written
at the end (entities, then relations), one write per collection.
"""

from __future__ import annotations

from cortex_tui.clock import Clock
from cortex_tui.config import GraphConfig
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.graph.index import normalise_name
from cortex_tui.graph.names import entity_keys, normalise_predicate
from cortex_tui.graph.resolve import EntityJudge, EntityResolver, MatchRule
from cortex_tui.graph.timeline import place
from cortex_tui.models import (
    CandidateEntity,
    CandidateRelation,
    Entity,
    EntityType,
    Memory,
    Relation,
)
from cortex_tui.store.base import Store


class Linker:
    """The working set of one `link` call for one memory."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: GraphConfig,
        clock: Clock,
        judge: EntityJudge | None,
        memory: Memory,
    ) -> None:
        self._store = store
        self._clock = clock
        self._memory = memory
        self._exclusive = {normalise_predicate(p) for p in config.exclusive_predicates}
        self._resolver = EntityResolver(store.all_entities(), store, embedder, config, judge)
        self._mentioned: list[str] = []
        self._changed: set[str] = set()
        self._new_vectors: dict[str, Matrix] = {}
        self._pairs: dict[tuple[str, str], list[Relation]] = {}
        self._relation_writes: dict[str, Relation] = {}
        self._stated: dict[str, Relation] = {}

    @property
    def entities(self) -> list[Entity]:
        """The entities named in this call, latest versions, in order of first mention."""
        return [self._resolver.entity(entity_id) for entity_id in self._mentioned]

    @property
    def relations(self) -> list[Relation]:
        """The relations stated in this call (new or repeated), latest versions."""
        return list(self._stated.values())

    def memory(self) -> Memory:
        """The memory with the entities of this call added to its earlier links."""
        ids = list(dict.fromkeys([*self._memory.entity_ids, *self._mentioned]))
        return self._memory.model_copy(update={"entity_ids": ids})

    def mention(self, candidate: CandidateEntity) -> Entity:
        """The entity `candidate` names, created if new, with this memory linked to it
        and a new spelling of its name kept as an alias."""
        candidate = candidate.model_copy(update={"name": candidate.name.strip()})
        resolution = self._resolver.resolve(candidate)
        vector: Matrix | None = None
        if resolution.entity is None:
            entity = Entity(name=candidate.name, type=candidate.type, created_at=self._clock())
            vector = self._resolver.name_vector(candidate.name)
            self._new_vectors[entity.id] = vector
        else:
            entity = self._resolver.entity(resolution.entity.id)
        updated = _with_mention(entity, candidate, self._memory.id, resolution.rule)
        if updated is not entity or vector is not None:
            self._changed.add(updated.id)
            self._resolver.add(updated, vector)
        if updated.id not in self._mentioned:
            self._mentioned.append(updated.id)
        return updated

    def relate(self, candidate: CandidateRelation) -> Relation | None:
        """The relation `candidate` states: a new one, or the existing one it repeats;
        None when both ends are one entity ("Postgres same_as PostgreSQL" once the two
        names resolve together), which states nothing about the graph."""
        subject = self.mention(CandidateEntity(name=candidate.subject))
        obj = self.mention(CandidateEntity(name=candidate.object))
        if subject.id == obj.id:
            return None
        new = Relation(
            subject_id=subject.id,
            predicate=normalise_predicate(candidate.predicate) or candidate.predicate,
            object_id=obj.id,
            valid_from=candidate.valid_at or self._memory.valid_from,
            source_memory_id=self._memory.id,
            confidence=self._memory.confidence,
        )
        placement = place(
            new,
            self._same_pair(subject.id, new.predicate),
            exclusive=new.predicate in self._exclusive,
        )
        for closed in placement.closed:
            self._record(closed)
        if placement.is_new:
            self._record(placement.relation)
        self._stated.setdefault(placement.relation.id, placement.relation)
        return placement.relation

    def commit(self) -> None:
        changed = [self._resolver.entity(entity_id) for entity_id in self._changed]
        created = [e for e in changed if e.id in self._new_vectors]
        updated = [e for e in changed if e.id not in self._new_vectors]
        if created:
            self._store.upsert_entities(created, [self._new_vectors[e.id] for e in created])
        if updated:
            self._store.update_entities(updated)
        if self._relation_writes:
            self._store.upsert_relations(list(self._relation_writes.values()))

    def _same_pair(self, subject_id: str, predicate: str) -> list[Relation]:
        """Relations with this subject and predicate, stored or made in this call."""
        key = (subject_id, predicate)
        if key not in self._pairs:
            stored = (
                []
                if subject_id in self._new_vectors
                else self._store.relations_of([subject_id], current_only=False)
            )
            self._pairs[key] = [
                r for r in stored if r.subject_id == subject_id and r.predicate == predicate
            ]
        return self._pairs[key]

    def _record(self, relation: Relation) -> None:
        pair = self._pairs[(relation.subject_id, relation.predicate)]
        pair[:] = [r for r in pair if r.id != relation.id] + [relation]
        self._relation_writes[relation.id] = relation
        if relation.id in self._stated:
            self._stated[relation.id] = relation


def _with_mention(
    entity: Entity, candidate: CandidateEntity, memory_id: str, rule: MatchRule
) -> Entity:
    """`entity` with the memory linked, a new spelling added as an alias and a known
    type replacing OTHER; the very same object when nothing changes."""
    update: dict[str, object] = {}
    if memory_id not in entity.memory_ids:
        update["memory_ids"] = [*entity.memory_ids, memory_id]
    key = normalise_name(candidate.name)
    if rule is not MatchRule.NEW and key and key not in entity_keys(entity):
        update["aliases"] = [*entity.aliases, candidate.name]
    if entity.type is EntityType.OTHER and candidate.type is not EntityType.OTHER:
        update["type"] = candidate.type
    return entity.model_copy(update=update) if update else entity
