"""Property: whatever a model holds comes back equal from every backend.

One store per backend per test, reused across examples (ids are random UUIDs).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortex_tui.models import (
    ConflictStatus,
    Entity,
    EntityType,
    Memory,
    MemoryStatus,
    MemoryType,
    Relation,
    Scope,
)
from cortex_tui.store.base import MemoryFilter, Store

from .helpers import unit_vectors

_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
EVERYTHING = MemoryFilter(statuses=None, current_only=False)

offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=offsets
)
uuids = st.uuids().map(str)
texts = st.text(
    alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from("[]{}()<>\n\t\"'\\`")),
    min_size=1,
    max_size=80,
)
short = st.text(max_size=12)
unit = st.floats(min_value=0.0, max_value=1.0)

memories = st.builds(
    Memory,
    id=uuids,
    content=texts,
    type=st.sampled_from(MemoryType),
    scope=st.sampled_from(Scope),
    confidence=unit,
    tags=st.lists(short, max_size=4),
    project=st.none() | short,
    session_id=st.none() | short,
    source=short,
    created_at=moments,
    updated_at=moments,
    last_accessed=st.none() | moments,
    access_count=st.integers(0, 2**63 - 1),
    reinforced_count=st.integers(0, 2**31),
    supersedes_id=st.none() | uuids,
    superseded_by_id=st.none() | uuids,
    valid_from=moments,
    valid_to=st.none() | moments,
    conflict_group_id=st.none() | uuids,
    conflict_status=st.sampled_from(ConflictStatus),
    contradicts_ids=st.lists(uuids, max_size=3),
    entity_ids=st.lists(uuids, max_size=3),
    episode_start=st.none() | moments,
    episode_end=st.none() | moments,
    ttl_hours=st.none()
    | st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, allow_nan=False),
    importance=unit,
    status=st.sampled_from(MemoryStatus),
)


@_SETTINGS
@given(batch=st.lists(memories, min_size=1, max_size=3, unique_by=lambda m: m.id))
def test_memories_round_trip(store: Store, batch: list[Memory]) -> None:
    assert all(m.created_at.tzinfo is UTC for m in batch)  # normalised by the model
    store.upsert_memories(batch, unit_vectors(len(batch)))
    ids = [m.id for m in batch]
    assert store.get_memories(ids) == batch
    page, _ = store.scroll_memories(EVERYTHING.model_copy(update={"ids": ids}), 10)
    assert sorted(page, key=lambda m: m.id) == sorted(batch, key=lambda m: m.id)


entities = st.builds(
    Entity,
    id=uuids,
    name=texts,
    type=st.sampled_from(EntityType),
    aliases=st.lists(texts, max_size=3),
    created_at=moments,
    memory_ids=st.lists(uuids, max_size=3),
)
relations = st.builds(
    Relation,
    id=uuids,
    subject_id=uuids,
    predicate=texts,
    object_id=uuids,
    valid_from=moments,
    valid_to=st.none() | moments,
    source_memory_id=st.none() | uuids,
    confidence=unit,
)


@settings(_SETTINGS, max_examples=20)
@given(entity=entities, relation=relations)
def test_entities_and_relations_round_trip(
    store: Store, entity: Entity, relation: Relation
) -> None:
    store.upsert_entities([entity], unit_vectors(1))
    assert store.get_entities([entity.id]) == [entity]
    store.upsert_relations([relation])
    assert relation in store.relations_of([relation.subject_id], current_only=False)
