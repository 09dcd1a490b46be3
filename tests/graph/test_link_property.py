"""Property: whatever sequence of link() calls arrives, links only grow and stay mutual."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import CandidateEntity, CandidateRelation, EntityType, Memory, MemoryDraft
from tests.conftest import NOW
from tests.graph.conftest import graph_of

POOL = [
    ("Priya Raman", EntityType.PERSON),
    ("Atlas", EntityType.PROJECT),
    ("Kubernetes", EntityType.SYSTEM),
    ("Berlin", EntityType.PLACE),
    ("Vault", EntityType.TOOL),
    ("Northwind Labs", EntityType.OTHER),
]
SPELLINGS = [str, str.upper, lambda name: f"{name.lower()}."]
PREDICATES = ["works_at", "uses"]
MEMORIES = 4

mention = st.tuples(st.integers(0, len(POOL) - 1), st.integers(0, len(SPELLINGS) - 1))
relation = st.tuples(
    st.integers(0, len(POOL) - 1),
    st.sampled_from(PREDICATES),
    st.integers(0, len(POOL) - 1),
    st.integers(0, 400),
)
step = st.tuples(
    st.integers(0, MEMORIES - 1),
    st.lists(mention, max_size=3),
    st.lists(relation, max_size=2),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(steps=st.lists(step, min_size=1, max_size=8))
def test_links_only_grow(
    engine: LocalEngine,
    steps: list[tuple[int, list[tuple[int, int]], list[tuple[int, str, int, int]]]],
) -> None:
    store = engine.store
    store.delete_entities([e.id for e in store.all_entities()])
    store.delete_relations([r.id for r in store.all_relations()])
    graph = graph_of(engine)
    memories: dict[int, Memory] = {}
    seen_entity_links: dict[str, set[str]] = {}
    mentioned: set[str] = set()
    for index, mentions, stated in steps:
        if index not in memories:
            draft = MemoryDraft(content=f"memory {index}", valid_from=NOW - timedelta(days=index))
            memories[index] = engine.materialise(draft)
        before = set(memories[index].entity_ids)
        candidates = [
            CandidateEntity(name=SPELLINGS[s](POOL[p][0]), type=POOL[p][1]) for p, s in mentions
        ]
        relations = [
            CandidateRelation(
                subject=POOL[a][0],
                predicate=pred,
                object=POOL[b][0],
                valid_at=NOW - timedelta(days=days),
            )
            for a, pred, b, days in stated
        ]
        mentioned |= {POOL[p][0] for p, _ in mentions} | {
            POOL[i][0] for a, _, b, _ in stated for i in (a, b)
        }
        memories[index], _, _ = graph.link(memories[index], candidates, relations)
        assert before <= set(memories[index].entity_ids)

        entities = {e.id: e for e in store.all_entities()}
        assert len(entities) == len(mentioned), "a re-mention created a duplicate entity"
        for entity in entities.values():
            assert len(entity.memory_ids) == len(set(entity.memory_ids))
            assert seen_entity_links.get(entity.id, set()) <= set(entity.memory_ids)
            seen_entity_links[entity.id] = set(entity.memory_ids)
        for memory in memories.values():
            assert len(memory.entity_ids) == len(set(memory.entity_ids))
            for entity_id in memory.entity_ids:
                assert memory.id in entities[entity_id].memory_ids
        linked = {m.id for m in memories.values()}
        for entity in entities.values():
            for memory_id in entity.memory_ids:
                assert memory_id in linked
                owner = next(m for m in memories.values() if m.id == memory_id)
                assert entity.id in owner.entity_ids
        current = Counter(
            (r.subject_id, r.predicate)
            for r in store.all_relations()
            if r.valid_to is None and r.predicate == "works_at"
        )
        assert all(count == 1 for count in current.values())
