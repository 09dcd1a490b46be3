"""Exclusive predicates: one object at a time, placed by statement time, never deleted."""

from __future__ import annotations

from datetime import datetime, timedelta

from cortex_tui.engine.local import LocalEngine
from cortex_tui.graph.service import GraphService
from cortex_tui.graph.timeline import place
from cortex_tui.models import EntityType, Relation
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

T0, T1, T2, T3 = (NOW - timedelta(days=d) for d in (300, 200, 100, 10))


def works_at(engine: LocalEngine, graph: GraphService, employer: str, at: datetime) -> None:
    memory = stored_memory(engine, f"Alice works at {employer}.", valid_from=at)
    link(
        engine,
        graph,
        memory,
        [ent("Alice", EntityType.PERSON)],
        [rel("Alice", "works at", employer)],
    )


def timeline(
    engine: LocalEngine, predicate: str = "works_at"
) -> list[tuple[str, datetime, datetime | None]]:
    names = {e.id: e.name for e in engine.store.all_entities()}
    found = [r for r in engine.store.all_relations() if r.predicate == predicate]
    return sorted(
        ((names[r.object_id], r.valid_from, r.valid_to) for r in found), key=lambda t: (t[1], t[0])
    )


def test_a_newer_statement_closes_the_current_one(engine: LocalEngine, graph: GraphService) -> None:
    works_at(engine, graph, "Initech", T1)
    works_at(engine, graph, "Globex", T2)
    assert timeline(engine) == [("Initech", T1, T2), ("Globex", T2, None)]
    current = engine.store.relations_of([graph.get("Alice").id])
    assert [r.valid_to for r in current] == [None]


def test_an_older_statement_arriving_late_is_stored_closed(
    engine: LocalEngine, graph: GraphService
) -> None:
    works_at(engine, graph, "Globex", T2)
    works_at(engine, graph, "Initech", T1)
    assert timeline(engine) == [("Initech", T1, T2), ("Globex", T2, None)]


def test_a_statement_between_two_is_slotted_in(engine: LocalEngine, graph: GraphService) -> None:
    works_at(engine, graph, "Initech", T0)
    works_at(engine, graph, "Hooli", T2)
    works_at(engine, graph, "Globex", T1)
    assert timeline(engine) == [
        ("Initech", T0, T1),
        ("Globex", T1, T2),
        ("Hooli", T2, None),
    ]


def test_an_identical_current_relation_is_not_duplicated(
    engine: LocalEngine, graph: GraphService
) -> None:
    works_at(engine, graph, "Globex", T1)
    works_at(engine, graph, "Globex", T2)
    works_at(engine, graph, "globex", T3)
    assert timeline(engine) == [("Globex", T1, None)]


def test_returning_to_an_old_object_opens_a_new_interval(
    engine: LocalEngine, graph: GraphService
) -> None:
    works_at(engine, graph, "Initech", T0)
    works_at(engine, graph, "Globex", T1)
    works_at(engine, graph, "Initech", T2)
    assert timeline(engine) == [
        ("Initech", T0, T1),
        ("Globex", T1, T2),
        ("Initech", T2, None),
    ]
    # A restatement inside a closed interval repeats that interval.
    works_at(engine, graph, "Initech", T0 + timedelta(days=1))
    assert len(timeline(engine)) == 3


def test_non_exclusive_predicates_accumulate(engine: LocalEngine, graph: GraphService) -> None:
    memory = stored_memory(engine, "Atlas uses Postgres and Redis.", valid_from=T1)
    link(
        engine, graph, memory, [], [rel("Atlas", "uses", "Postgres"), rel("Atlas", "uses", "Redis")]
    )
    later = stored_memory(engine, "Atlas uses Kafka.", valid_from=T2)
    link(engine, graph, later, [], [rel("Atlas", "uses", "Kafka")])
    assert timeline(engine, "uses") == [
        ("Postgres", T1, None),
        ("Redis", T1, None),
        ("Kafka", T2, None),
    ]


def test_two_objects_in_one_memory_the_later_statement_wins(
    engine: LocalEngine, graph: GraphService
) -> None:
    memory = stored_memory(engine, "Alice moved from Initech to Globex.", valid_from=T2)
    _, _, relations = graph.link(
        memory, [], [rel("Alice", "works_at", "Initech", T1), rel("Alice", "works_at", "Globex")]
    )
    assert [(r.valid_from, r.valid_to) for r in relations] == [(T1, T2), (T2, None)]
    assert timeline(engine) == [("Initech", T1, T2), ("Globex", T2, None)]


def test_exclusivity_is_per_subject(engine: LocalEngine, graph: GraphService) -> None:
    memory = stored_memory(engine, "Alice and Bob both lead teams.", valid_from=T1)
    link(engine, graph, memory, [], [rel("Alice", "leads", "Atlas"), rel("Bob", "leads", "Harbor")])
    assert all(r.valid_to is None for r in engine.store.all_relations())


def _r(obj: str, start: datetime, end: datetime | None = None) -> Relation:
    return Relation(
        subject_id="s", predicate="leads", object_id=obj, valid_from=start, valid_to=end
    )


def test_place_never_extends_an_interval() -> None:
    existing = [_r("a", T0, T2), _r("b", T2)]
    placed = place(_r("c", T1), existing, exclusive=True)
    assert placed.is_new and placed.relation.valid_to == T2
    assert [(r.object_id, r.valid_to) for r in placed.closed] == [("a", T1)]
    tie = place(_r("c", T2), existing, exclusive=True)
    assert [(r.object_id, r.valid_from, r.valid_to) for r in tie.closed] == [("b", T2, T2)]
    assert tie.relation.valid_to is None
