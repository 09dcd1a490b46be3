"""The `Store` contract, run against every backend (see conftest.py)."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from cortex_tui.errors import EmbedderMismatchError, InvalidInputError, NotFoundError, StoreError
from cortex_tui.models import (
    ConflictStatus,
    Entity,
    EntityType,
    Memory,
    MemoryStatus,
    MemoryType,
    Relation,
    Scope,
    new_id,
)
from cortex_tui.recall.exclusion import exclusion_reason
from cortex_tui.store.base import JournalEntry, MemoryFilter, ScoredMemory, Store

from .conftest import StoreOpener
from .helpers import DIM, EMBEDDER, SERVER_URL, T0, make_memory, unit_vectors

ALL = MemoryFilter(statuses=None, current_only=False)


def _put(store: Store, memories: list[Memory], seed: int = 0) -> None:
    store.upsert_memories(memories, unit_vectors(len(memories), seed))


def _ids(scored: list[ScoredMemory]) -> list[str]:
    return [s.memory.id for s in scored]


def test_meta_and_protocol(store: Store) -> None:
    assert isinstance(store, Store)
    assert (store.meta.embedder, store.meta.dimension) == (EMBEDDER, DIM)
    assert store.location


def test_get_memories_in_requested_order(store: Store) -> None:
    ms = [make_memory(f"fact {i}") for i in range(3)]
    _put(store, ms)
    wanted = [ms[2].id, new_id(), "not-a-uuid", ms[0].id]
    assert store.get_memories(wanted) == [ms[2], ms[0]]
    assert store.get_memories([]) == []


def test_upsert_replaces(store: Store) -> None:
    m = make_memory("first version")
    _put(store, [m])
    changed = m.model_copy(update={"content": "second version"})
    _put(store, [changed], seed=1)
    assert store.get_memories([m.id]) == [changed]
    assert store.count_memories(ALL) == 1


def test_vectors_round_trip(store: Store) -> None:
    ms = [make_memory(f"fact {i}") for i in range(3)]
    vecs = unit_vectors(3, seed=7)
    store.upsert_memories(ms, vecs)
    got = store.get_vectors([ms[1].id, ms[2].id, new_id()])
    assert set(got) == {ms[1].id, ms[2].id}
    for m, v in ((ms[1], vecs[1]), (ms[2], vecs[2])):
        assert got[m.id] == pytest.approx(v, abs=1e-6)  # stored as float32


def test_numpy_vectors(store: Store) -> None:
    m = make_memory("embedded by an array")
    vec = np.asarray(unit_vectors(1, seed=11)[0], dtype=np.float32)
    store.upsert_memories([m], [vec])
    assert _ids(store.search_dense(vec, MemoryFilter(), 1)) == [m.id]
    store.upsert_entities([_entity("array")], [vec])
    assert store.search_entities(vec, 1)[0].entity.name == "array"


def test_invalid_writes(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="UUID"):
        store.upsert_memories([make_memory(id="short")], unit_vectors(1))
    with pytest.raises(StoreError, match="3-d vector"):
        store.upsert_memories([make_memory()], [[1.0, 0.0, 0.0]])
    with pytest.raises(InvalidInputError):
        store.upsert_memories([make_memory()], [])
    store.upsert_memories([], [])
    store.update_memories([])
    assert store.count_memories(ALL) == 0


def test_update_memories_keeps_vector(store: Store) -> None:
    m = make_memory("the deploy script lives in ops", tags=["alpha"])
    vec = unit_vectors(1, seed=3)
    store.upsert_memories([m], vec)
    updated = m.model_copy(update={"access_count": 4, "tags": ["omega"], "confidence": 0.31})
    store.update_memories([updated])
    assert store.get_memories([m.id]) == [updated]
    assert store.get_vectors([m.id])[m.id] == pytest.approx(vec[0], abs=1e-6)
    hits = store.search_dense(vec[0], MemoryFilter(), 1)
    assert _ids(hits) == [m.id] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    # tags are part of the lexical index: retagging re-indexes them
    assert _ids(store.search_lexical("omega", MemoryFilter(), 5)) == [m.id]
    assert store.search_lexical("alpha", MemoryFilter(), 5) == []


def test_update_memories_refuses_missing_and_content_change(store: Store) -> None:
    m = make_memory("original content")
    _put(store, [m])
    with pytest.raises(NotFoundError):
        store.update_memories([make_memory("never stored")])
    with pytest.raises(InvalidInputError, match="content changed"):
        store.update_memories([m.model_copy(update={"content": "edited"})])
    assert store.get_memories([m.id]) == [m]


def test_find_ids_by_prefix(store: Store) -> None:
    ids = [
        "abcd0000-0000-4000-8000-000000000001",
        "abcd1111-0000-4000-8000-000000000002",
        "abff0000-0000-4000-8000-000000000003",
    ]
    _put(store, [make_memory(f"m {i}", id=i) for i in ids])
    assert store.find_ids_by_prefix("abcd", limit=5) == ids[:2]
    assert store.find_ids_by_prefix("ABCD1") == [ids[1]]
    assert len(store.find_ids_by_prefix("ab", limit=2)) == 2
    assert store.find_ids_by_prefix("ffff") == []
    assert store.find_ids_by_prefix("") == []


@pytest.fixture
def corpus(store: Store) -> dict[str, Memory]:
    """Memories that differ in one filtered field each."""
    later = T0 + timedelta(days=10)
    ms = {
        "global": make_memory("global rule about commits", type=MemoryType.RULE, tags=["git"]),
        "atlas": make_memory("atlas uses postgres", project="atlas", tags=["db", "postgres"]),
        "zephyr": make_memory("zephyr uses sqlite", project="zephyr", tags=["db"]),
        "old": make_memory(
            "atlas used mysql", project="atlas", valid_to=later, superseded_by_id=new_id()
        ),
        "new": make_memory(
            "atlas moved to postgres 16",
            project="atlas",
            valid_from=later,
            created_at=later,
            updated_at=later,
        ),
        "archived": make_memory("an archived note", status=MemoryStatus.ARCHIVED),
        "conflict": make_memory(
            "a contested claim",
            conflict_status=ConflictStatus.ACTIVE,
            conflict_group_id="g-1",
            scope=Scope.SESSION,
        ),
        "resolved": make_memory("a retired claim", conflict_status=ConflictStatus.RESOLVED),
        "session": make_memory(
            "said in session one", session_id="s-1", type=MemoryType.EPISODE, speaker="Ana"
        ),
    }
    _put(store, list(ms.values()))
    return ms


def _names(store: Store, corpus: dict[str, Memory], flt: MemoryFilter) -> set[str]:
    by_id = {m.id: name for name, m in corpus.items()}
    found = {by_id[m.id] for m in store.iter_memories(flt, batch=4)}
    assert store.count_memories(flt) == len(found)
    return found


def test_filter_project_includes_global(store: Store, corpus: dict[str, Memory]) -> None:
    atlas = _names(store, corpus, MemoryFilter(project="atlas"))
    assert {"global", "atlas", "new"} <= atlas
    assert "zephyr" not in atlas and "old" not in atlas
    only = _names(store, corpus, MemoryFilter(project="atlas", project_only=True))
    assert only == {"atlas", "new"}
    unowned = _names(store, corpus, MemoryFilter(global_only=True, project="atlas"))
    assert "global" in unowned and not unowned & {"atlas", "new", "zephyr"}


def test_filter_current_and_as_of(store: Store, corpus: dict[str, Memory]) -> None:
    current = _names(store, corpus, MemoryFilter())
    assert "old" not in current and "new" in current and "archived" not in current
    history = _names(store, corpus, MemoryFilter(current_only=False, project="atlas"))
    assert {"old", "new"} <= history
    then = _names(store, corpus, MemoryFilter(as_of=T0 + timedelta(days=1), project="atlas"))
    assert "old" in then and "new" not in then
    later = _names(store, corpus, MemoryFilter(as_of=T0 + timedelta(days=10), project="atlas"))
    assert "old" not in later and "new" in later  # valid_to is exclusive
    assert _names(store, corpus, MemoryFilter(as_of=T0 - timedelta(seconds=1))) == set()


def test_filter_statuses_and_conflicts(store: Store, corpus: dict[str, Memory]) -> None:
    assert "archived" in _names(store, corpus, MemoryFilter(statuses=None))
    assert _names(store, corpus, MemoryFilter(statuses=[MemoryStatus.ARCHIVED])) == {"archived"}
    assert _names(store, corpus, MemoryFilter(statuses=[])) == set()
    hide = MemoryFilter(exclude_conflict_statuses=[ConflictStatus.RESOLVED])
    assert "resolved" not in _names(store, corpus, hide)
    active = MemoryFilter(conflict_statuses=[ConflictStatus.ACTIVE])
    assert _names(store, corpus, active) == {"conflict"}
    assert _names(store, corpus, MemoryFilter(conflict_group_id="g-1")) == {"conflict"}
    assert _names(store, corpus, MemoryFilter(conflict_group_id="g-2")) == set()


def test_filter_types_scopes_tags_ids_session(store: Store, corpus: dict[str, Memory]) -> None:
    assert _names(store, corpus, MemoryFilter(types=[MemoryType.RULE])) == {"global"}
    types = MemoryFilter(types=[MemoryType.RULE, MemoryType.EPISODE])
    assert _names(store, corpus, types) == {"global", "session"}
    assert _names(store, corpus, MemoryFilter(scopes=[Scope.SESSION])) == {"conflict"}
    assert _names(store, corpus, MemoryFilter(tags=["db"])) == {"atlas", "zephyr"}
    assert _names(store, corpus, MemoryFilter(tags=["git", "postgres"])) == {"global", "atlas"}
    ids = [corpus["atlas"].id, corpus["old"].id, "abc", new_id()]
    assert _names(store, corpus, MemoryFilter(ids=ids)) == {"atlas"}
    assert _names(store, corpus, MemoryFilter(ids=[])) == set()
    assert _names(store, corpus, MemoryFilter(session_id="s-1")) == {"session"}
    assert _names(store, corpus, MemoryFilter(speakers=["Ana", "Bo"])) == {"session"}
    assert _names(store, corpus, MemoryFilter(speakers=["ana"])) == set()


def test_filter_text(store: Store, corpus: dict[str, Memory]) -> None:
    assert _names(store, corpus, MemoryFilter(text="POSTGRES")) == {"atlas", "new"}
    assert _names(store, corpus, MemoryFilter(text="postgres moved")) == {"new"}
    assert _names(store, corpus, MemoryFilter(text="postgres nowhere")) == set()
    assert _names(store, corpus, MemoryFilter(text="  ")) == _names(store, corpus, MemoryFilter())


def test_filter_has_predecessor(store: Store) -> None:
    old = make_memory("atlas used mysql", valid_to=T0 + timedelta(days=1))
    new = make_memory("atlas moved to postgres", supersedes_id=old.id)
    plain = make_memory("atlas runs on kubernetes")
    _put(store, [old, new, plain])
    heads = MemoryFilter(has_predecessor=True)
    assert [m.id for m in store.iter_memories(heads)] == [new.id]
    assert store.count_memories(heads) == 1
    assert store.count_memories(MemoryFilter()) == 2


def test_filter_source_prefix(store: Store) -> None:
    """Prefix match on `source`, inside searches too, mirrored by `exclusion_reason`."""
    sources = {
        "guide": "index:repo/docs/guide.md@0a1b2c3d4e5f#setup",
        "guide2": "index:repo/docs/guide.md@0a1b2c3d4e5f#database",
        "nested": "index:repo/docs/deep/api.md@ffeeddccbbaa",
        "sibling": "index:repo/docs-old/guide.md@0a1b2c3d4e5f",
        "other": "index:elsewhere/README.md@0a1b2c3d4e5f",
        "typed": "remember",
    }
    ms = {name: make_memory(f"chunk {name}", source=src) for name, src in sources.items()}
    _put(store, list(ms.values()))

    def names(prefix: str) -> set[str]:
        flt = MemoryFilter(source_prefix=prefix)
        found = {m.id for m in store.iter_memories(flt, batch=2)}
        assert store.count_memories(flt) == len(found)
        for memory in ms.values():  # the Python mirror agrees with the store
            assert (exclusion_reason(memory, flt) is None) == (memory.id in found)
        return {name for name, m in ms.items() if m.id in found}

    assert names("index:repo/docs/") == {"guide", "guide2", "nested"}
    assert names("index:repo/docs/guide.md@") == {"guide", "guide2"}
    assert names("index:") == set(sources) - {"typed"}
    assert names("INDEX:") == set()  # case-sensitive, like the paths in it
    assert names("index:nowhere/") == set()
    assert names("") == set(sources)  # every source starts with ""
    flt = MemoryFilter(source_prefix="index:repo/docs-old/")
    assert _ids(store.search_dense(unit_vectors(1, seed=3)[0], flt, 10)) == [ms["sibling"].id]
    assert store.facet_memories("source", flt) == {sources["sibling"]: 1}


def test_filters_apply_inside_searches(store: Store, corpus: dict[str, Memory]) -> None:
    flt = MemoryFilter(project="zephyr", project_only=True)
    assert _ids(store.search_dense(unit_vectors(1, seed=99)[0], flt, 10)) == [corpus["zephyr"].id]
    assert _ids(store.search_lexical("uses", flt, 10)) == [corpus["zephyr"].id]


def test_prefiltering_finds_a_rare_match(store: Store) -> None:
    """200 near neighbours in project A, one far-away memory in B: a filter applied after
    a top-k would find nothing in B."""
    near = [[1.0, 0.01 * (i % 7), 0, 0, 0, 0, 0, 0] for i in range(200)]
    crowd = [make_memory(f"deploy note {i}", project="A") for i in range(200)]
    lonely = make_memory("deploy note for B", project="B")
    store.upsert_memories([*crowd, lonely], [*near, [0, 0, 0, 0, 0, 0, 0, 1.0]])
    only_b = MemoryFilter(project="B", project_only=True)
    query = [1.0, 0, 0, 0, 0, 0, 0, 0]
    assert _ids(store.search_dense(query, only_b, 5)) == [lonely.id]
    assert _ids(store.search_lexical("deploy note", only_b, 5)) == [lonely.id]
    assert len(store.search_dense(query, MemoryFilter(project="A"), 5)) == 5


def test_lexical_ranks_rare_exact_term_first(store: Store) -> None:
    target = make_memory("The events.raw table is partitioned by day", project="atlas")
    others = [make_memory(f"the table of day {i} is partitioned weekly") for i in range(8)]
    other_project = make_memory("events.raw is mirrored nightly", project="zephyr")
    _put(store, [target, *others, other_project])
    hits = store.search_lexical("events.raw partitioning", MemoryFilter(project="atlas"), 5)
    assert hits[0].memory.id == target.id
    assert other_project.id not in _ids(hits)
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert _ids(store.search_lexical("raw", MemoryFilter(), 5))[0] in {
        target.id,
        other_project.id,
    }
    assert store.search_lexical("the of and", MemoryFilter(), 5) == []


def test_searches_settle_ties_at_the_cut_by_id(store: Store) -> None:
    """Sixty memories score the same on both channels; a top 10 is the ten smallest ids,
    whatever order the index keeps them in (it differs between stores of the same data)."""
    tied = [make_memory(f"standup notes number {i:02d} tuesday") for i in range(60)]
    better = make_memory("standup notes standup tuesday")
    same_vector = [1.0, 0, 0, 0, 0, 0, 0, 0]
    store.upsert_memories([*tied, better], [same_vector] * 60 + [same_vector])
    smallest = sorted(m.id for m in [*tied, better])
    lexical = _ids(store.search_lexical("standup", MemoryFilter(), 10))
    assert lexical[0] == better.id  # tf 2 scores higher: ties only order equal scores
    assert lexical[1:] == sorted(m.id for m in tied)[:9]
    assert _ids(store.search_dense(same_vector, MemoryFilter(), 10)) == smallest[:10]
    # Ids alone (no payload read) settle the same way.
    assert [i for i, _ in store.search_ids(same_vector, MemoryFilter(), 10)] == smallest[:10]


def test_scroll_pages_in_id_order(store: Store) -> None:
    ms = [make_memory(f"fact {i}") for i in range(7)]
    _put(store, ms)
    seen: list[str] = []
    offset = None
    while True:
        page, offset = store.scroll_memories(MemoryFilter(), 3, offset)
        seen += [m.id for m in page]
        assert len(page) <= 3
        if offset is None:
            break
    assert seen == sorted(m.id for m in ms)
    assert [m.id for m in store.iter_memories(MemoryFilter(), batch=2)] == seen
    with pytest.raises(InvalidInputError):
        store.scroll_memories(MemoryFilter(), 3, "nope")


def test_count_and_facets(store: Store, corpus: dict[str, Memory]) -> None:
    assert store.count_memories(ALL) == len(corpus)
    types = store.facet_memories("type", ALL)
    assert types["rule"] == 1 and types["episode"] == 1 and sum(types.values()) == len(corpus)
    assert store.facet_memories("tags", MemoryFilter()) == {"db": 2, "git": 1, "postgres": 1}
    projects = store.facet_memories("project", MemoryFilter(current_only=False))
    assert projects == {"atlas": 3, "zephyr": 1}
    assert store.facet_memories("tags", MemoryFilter(), limit=1) == {"db": 2}
    assert store.facet_memories("speaker", ALL) == {"Ana": 1}
    with pytest.raises(InvalidInputError, match="known fields"):
        store.facet_memories("content", ALL)


def test_delete_memories(store: Store) -> None:
    ms = [make_memory(f"fact {i}") for i in range(3)]
    _put(store, ms)
    store.delete_memories([ms[0].id, new_id(), "junk"])
    assert store.get_memories([m.id for m in ms]) == ms[1:]
    assert store.get_vectors([ms[0].id]) == {}
    store.delete_memories([])


def _entity(name: str, **fields: Any) -> Entity:
    return Entity(name=name, created_at=T0, **fields)


def test_entities(store: Store) -> None:
    es = [_entity("Priya", type=EntityType.PERSON, aliases=["P."]), _entity("atlas")]
    vecs = unit_vectors(2, seed=5)
    store.upsert_entities(es, vecs)
    assert store.get_entities([es[1].id, new_id(), es[0].id]) == [es[1], es[0]]
    assert sorted(e.id for e in store.all_entities()) == sorted(e.id for e in es)
    hits = store.search_entities(vecs[1], 1)
    assert hits[0].entity == es[1] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    grown = es[1].model_copy(update={"memory_ids": [new_id()], "aliases": ["Atlas"]})
    store.update_entities([grown])
    assert store.search_entities(vecs[1], 1)[0].entity == grown
    with pytest.raises(NotFoundError):
        store.update_entities([_entity("ghost")])
    store.delete_entities([es[0].id])
    assert store.all_entities() == [grown]


def test_relations(store: Store) -> None:
    priya, atlas, zephyr = new_id(), new_id(), new_id()
    leads = Relation(subject_id=priya, predicate="leads", object_id=atlas, valid_from=T0)
    led = Relation(
        subject_id=priya,
        predicate="leads",
        object_id=zephyr,
        valid_from=T0 - timedelta(days=90),
        valid_to=T0,
        source_memory_id=new_id(),
    )
    uses = Relation(subject_id=zephyr, predicate="uses", object_id=atlas, valid_from=T0)
    store.upsert_relations([leads, led, uses])
    key = lambda r: r.id  # noqa: E731
    assert sorted(store.relations_of([priya]), key=key) == sorted([leads], key=key)
    assert sorted(store.relations_of([priya], current_only=False), key=key) == sorted(
        [leads, led], key=key
    )
    assert sorted(store.relations_of([atlas]), key=key) == sorted([leads, uses], key=key)
    both = store.relations_of([zephyr], current_only=False)
    assert sorted(both, key=key) == sorted([led, uses], key=key)
    assert store.relations_of([]) == []
    assert len(store.all_relations()) == 3
    store.delete_relations([uses.id])
    assert sorted(store.all_relations(), key=key) == sorted([leads, led], key=key)


def test_journal_newest_first(store: Store) -> None:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    entries = [
        JournalEntry(new_id(), at, f"action-{i}", {"before": [{"confidence": 0.1 + i / 3}]})
        for i in range(5)
    ]
    for entry in entries:  # equal timestamps: append order decides
        store.append_journal(entry)
    assert store.journal() == entries[::-1]
    assert store.journal(limit=2) == entries[:2:-1]
    store.delete_journal([entries[4].id, entries[0].id])
    assert store.journal() == entries[3:0:-1]
    with pytest.raises(InvalidInputError):
        store.append_journal(JournalEntry(new_id(), datetime(2025, 1, 1), "naive", {}))


def test_embedder_mismatch(open_store: StoreOpener, backend: str) -> None:
    if backend == "memory":
        pytest.skip("every :memory: client is a new, empty instance: nothing to reopen")
    first = open_store()
    location = first.location
    first.close()
    with pytest.raises(EmbedderMismatchError) as err:
        open_store(embedder="other-model", dimension=384)
    message = str(err.value)
    assert location in message and f"{EMBEDDER} ({DIM}-d)" in message
    assert "other-model (384-d)" in message and "cortex-tui reembed" in message
    legacy = open_store(embedder="other-model", dimension=384, check_embedder=False)
    assert (legacy.meta.embedder, legacy.meta.dimension) == (EMBEDDER, DIM)


def test_reopen_keeps_meta_and_data(open_store: StoreOpener, backend: str) -> None:
    if backend == "memory":
        pytest.skip("every :memory: client is a new, empty instance: nothing to reopen")
    first = open_store()
    m = make_memory("persistent fact about kafka", tags=["kafka"])
    vec = unit_vectors(1)
    first.upsert_memories([m], vec)
    entity = _entity("kafka")
    first.upsert_entities([entity], vec)
    first.append_journal(JournalEntry(new_id(), T0, "remember", {"id": m.id}))
    meta = first.meta
    first.close()
    again = open_store()
    assert again.meta == meta
    assert again.get_memories([m.id]) == [m]
    assert again.get_vectors([m.id])[m.id] == pytest.approx(vec[0], abs=1e-6)
    assert _ids(again.search_lexical("kafka", MemoryFilter(), 3)) == [m.id]
    assert again.all_entities() == [entity]
    assert [e.action for e in again.journal()] == ["remember"]
    again.append_journal(JournalEntry(new_id(), T0, "forget", {}))
    assert [e.action for e in again.journal()] == ["forget", "remember"]


def test_unique_ids_are_required_uuids(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        store.upsert_relations(
            [Relation(id="r1", subject_id="a", predicate="p", object_id="b", valid_from=T0)]
        )
    assert uuid.UUID(new_id())  # the default id factory makes valid point ids


@pytest.mark.skipif(
    not SERVER_URL,
    reason="set CORTEX_QDRANT_URL to run the contract suite against a Qdrant server too",
)
def test_store_server_configured() -> None:
    """Present so a run without a server says so once."""


def test_non_durable_update_survives_close_and_reopen(
    open_store: StoreOpener, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("every :memory: client is a new, empty instance: nothing to reopen")
    first = open_store()
    m = make_memory("access statistics are written without an fsync each")
    first.upsert_memories([m], unit_vectors(1))
    touched = m.model_copy(update={"access_count": 5})
    first.update_memories([touched], durable=False)
    assert first.get_memories([m.id])[0].access_count == 5
    first.close()
    again = open_store()
    assert again.get_memories([m.id])[0].access_count == 5


def test_scans_read_only_the_fields_asked_in_id_order(store: Store) -> None:
    memories = [
        make_memory(f"fact {n}", type=MemoryType.RULE if n % 2 else MemoryType.FACT)
        for n in range(30)
    ]
    _put(store, memories)
    scanned = list(store.scan_memories(ALL, ("id", "type"), batch=7))
    assert [p["id"] for p in scanned] == sorted(m.id for m in memories)
    assert all(set(p) == {"id", "type"} for p in scanned)
    rules = list(store.scan_memories(MemoryFilter(types=[MemoryType.RULE]), ("id",)))
    assert {p["id"] for p in rules} == {m.id for m in memories if m.type is MemoryType.RULE}


def test_time_windows_and_sources_filter_in_the_store(store: Store) -> None:
    day = timedelta(days=1)
    made = [make_memory(f"on day {n}", created_at=T0 + n * day, source=("hook", "remember")[n % 2])
            for n in range(6)]  # fmt: skip
    ended = make_memory("replaced on day 2", valid_to=T0 + 2 * day, superseded_by_id=made[0].id)
    _put(store, [*made, ended])

    def ids(**fields: Any) -> set[str]:
        flt = ALL.model_copy(update=fields)
        return {m.id for m in store.iter_memories(flt)}

    assert ids(created_from=T0 + 2 * day, created_until=T0 + 4 * day) == {
        made[2].id, made[3].id,
    }  # fmt: skip
    assert ids(ended_from=T0 + 2 * day, ended_until=T0 + 3 * day) == {ended.id}
    assert ids(ended_from=T0 + 3 * day) == set()
    assert ids(sources=["hook"]) == {m.id for m in made if m.source == "hook"}
    newest = store.newest_memory(ALL.model_copy(update={"sources": ["hook"]}))
    assert newest is not None and newest.id == made[4].id
    assert store.newest_memory(ALL.model_copy(update={"sources": ["nothing"]})) is None
