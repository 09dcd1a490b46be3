"""Linking memories into the graph: entities, mentions, aliases, relations."""

from __future__ import annotations

from datetime import timedelta

from cortex_tui.engine.local import LocalEngine
from cortex_tui.graph.service import GraphService
from cortex_tui.models import EntityType
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

PERSON, PROJECT = EntityType.PERSON, EntityType.PROJECT


def test_link_creates_entities_links_both_ways_and_stores_name_vectors(
    engine: LocalEngine, graph: GraphService
) -> None:
    memory = stored_memory(engine, "Priya Raman leads the atlas project.")
    linked, entities, relations = graph.link(
        memory, [ent("Priya Raman", PERSON), ent("Atlas", PROJECT)], []
    )
    assert [e.name for e in entities] == ["Priya Raman", "Atlas"]
    assert linked.entity_ids == [e.id for e in entities]
    assert relations == []
    stored = {e.name: e for e in engine.store.all_entities()}
    assert stored["Atlas"].memory_ids == [memory.id]
    assert stored["Priya Raman"].type is PERSON
    nearest = engine.store.search_entities(engine.embedder.embed_query("Atlas"), 1)
    assert nearest[0].entity.id == stored["Atlas"].id and nearest[0].score > 0.99
    # link() does not write the memory: the caller stores it with the rest.
    assert engine.store.get_memories([memory.id])[0].entity_ids == []


def test_link_is_idempotent(engine: LocalEngine, graph: GraphService) -> None:
    memory = stored_memory(engine, "Priya leads atlas.")
    args = ([ent("Priya", PERSON), ent("Atlas", PROJECT)], [rel("Priya", "leads", "Atlas")])
    first, entities, relations = graph.link(memory, *args)
    before = (engine.store.all_entities(), engine.store.all_relations())
    again, entities_again, relations_again = graph.link(first, *args)
    assert again == first
    assert (entities_again, relations_again) == (entities, relations)
    assert (engine.store.all_entities(), engine.store.all_relations()) == before


def test_remention_adds_links_and_a_new_spelling_becomes_an_alias(
    engine: LocalEngine, graph: GraphService
) -> None:
    one = link(
        engine,
        graph,
        stored_memory(engine, "Priya Raman approves access."),
        [ent("Priya Raman", PERSON)],
    )
    two = link(
        engine, graph, stored_memory(engine, "priya raman is on leave."), [ent("priya raman")]
    )
    three = link(
        engine,
        graph,
        stored_memory(engine, "Priya Ramen reviews the RFC."),
        [ent("Priya Ramen", PERSON)],
    )
    (priya,) = engine.store.all_entities()
    assert priya.memory_ids == [one.id, two.id, three.id]
    assert priya.aliases == ["Priya Ramen"]  # same key "priya raman" is not a new spelling
    assert one.entity_ids == two.entity_ids == three.entity_ids == [priya.id]


def test_a_known_type_replaces_other(engine: LocalEngine, graph: GraphService) -> None:
    link(engine, graph, stored_memory(engine, "ask about atlas"), [ent("Atlas")])
    link(engine, graph, stored_memory(engine, "atlas ships weekly"), [ent("Atlas", PROJECT)])
    (atlas,) = engine.store.all_entities()
    assert atlas.type is PROJECT


def test_relations_resolve_or_create_their_endpoints(
    engine: LocalEngine, graph: GraphService
) -> None:
    memory = stored_memory(engine, "Priya leads Atlas, which deploys to Kubernetes.")
    at = NOW - timedelta(days=30)
    linked, entities, relations = graph.link(
        memory,
        [ent("Priya", PERSON), ent("Atlas", PROJECT)],
        [rel("priya", "Leads", "atlas"), rel("Atlas", "deploys to", "Kubernetes", at)],
    )
    names = {e.id: e.name for e in engine.store.all_entities()}
    assert sorted(names.values()) == ["Atlas", "Kubernetes", "Priya"]
    assert [e.name for e in entities] == ["Priya", "Atlas", "Kubernetes"]
    assert len(linked.entity_ids) == 3
    leads, deploys = relations
    assert (names[leads.subject_id], leads.predicate, names[leads.object_id]) == (
        "Priya",
        "leads",
        "Atlas",
    )
    assert leads.valid_from == memory.valid_from and leads.valid_to is None
    assert deploys.predicate == "deploys_to" and deploys.valid_from == at
    assert {r.source_memory_id for r in relations} == {memory.id}
    kube = next(e for e in engine.store.all_entities() if e.name == "Kubernetes")
    assert kube.memory_ids == [memory.id] and kube.type is EntityType.OTHER


def test_blank_names_are_skipped(engine: LocalEngine, graph: GraphService) -> None:
    memory = stored_memory(engine, "something about nothing")
    linked, entities, relations = graph.link(memory, [ent("  ")], [rel(" ", "uses", "Atlas")])
    assert (linked.entity_ids, entities, relations) == ([], [], [])
    assert engine.store.all_entities() == []


def test_earlier_links_on_the_memory_are_kept(engine: LocalEngine, graph: GraphService) -> None:
    memory = stored_memory(engine, "Priya and Atlas")
    first = link(engine, graph, memory, [ent("Priya", PERSON)])
    second = link(engine, graph, first, [ent("Atlas", PROJECT)])
    assert len(second.entity_ids) == 2 and second.entity_ids[0] == first.entity_ids[0]


def test_a_relation_whose_ends_resolve_to_one_entity_is_skipped(
    engine: LocalEngine, graph: GraphService
) -> None:
    memory = stored_memory(engine, "Postgres is the same as postgres.")
    _, entities, relations = graph.link(memory, [], [rel("Postgres", "same_as", "POSTGRES")])
    assert len(entities) == 1 and relations == []
    assert engine.store.all_relations() == []
