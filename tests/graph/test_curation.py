"""Finding and curating entities: get, list, search, merge, alias, rename."""

from __future__ import annotations

import pytest

from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.graph.service import GraphService
from cortex_tui.models import Entity, EntityType
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

SYSTEM = EntityType.SYSTEM


@pytest.fixture
def databases(engine: LocalEngine, graph: GraphService) -> dict[str, str]:
    """Two entities that are one database, each with its own memories and relations."""
    a = stored_memory(engine, "Atlas uses Postgres for orders.")
    b = stored_memory(engine, "PostgreSQL backups run nightly.")
    c = stored_memory(engine, "Harbor also uses PostgreSQL; Postgres is PostgreSQL.")
    link(engine, graph, a, [ent("Postgres", SYSTEM)], [rel("Atlas", "uses", "Postgres")])
    link(engine, graph, b, [ent("PostgreSQL", SYSTEM), ent("pg", SYSTEM)])
    link(
        engine,
        graph,
        c,
        [ent("Postgres", SYSTEM), ent("PostgreSQL", SYSTEM)],
        [rel("Harbor", "uses", "PostgreSQL"), rel("Postgres", "same_as", "PostgreSQL")],
    )
    return {"a": a.id, "b": b.id, "c": c.id}


def by_name(engine: LocalEngine) -> dict[str, Entity]:
    return {e.name: e for e in engine.store.all_entities()}


def test_get_by_id_prefix_name_and_alias(engine: LocalEngine, graph: GraphService) -> None:
    (atlas,) = graph.link(stored_memory(engine, "atlas"), [ent("Atlas")], [])[1]
    graph.add_alias(atlas.id, "the monolith")
    assert graph.get(atlas.id).id == atlas.id
    assert graph.get(atlas.id[:6].upper()).id == atlas.id
    assert graph.get("ATLAS").id == atlas.id
    assert graph.get("The Monolith!").id == atlas.id
    with pytest.raises(NotFoundError, match="entities search"):
        graph.get("Harbor")
    with pytest.raises(InvalidInputError):
        graph.get("  ")


def test_a_name_shared_by_two_entities_is_ambiguous(engine: LocalEngine) -> None:
    twins = [Entity(name="Atlas", type=t, created_at=NOW) for t in (SYSTEM, EntityType.PLACE)]
    engine.insert_graph(twins, [])
    graph = GraphService(engine.store, engine.embedder, engine.settings.graph, engine.clock)
    with pytest.raises(AmbiguousIdError, match="give an id"):
        graph.get("atlas")
    assert graph.get(twins[1].id).type is EntityType.PLACE


def test_list_most_mentioned_first_with_type_filter(
    graph: GraphService, databases: dict[str, str]
) -> None:
    page = graph.list_entities()
    assert page.total == 5
    assert [e.name for e in page.entities][:2] == ["Postgres", "PostgreSQL"]
    systems = graph.list_entities(SYSTEM)
    assert {e.name for e in systems.entities} == {"Postgres", "PostgreSQL", "pg"}
    assert len(graph.list_entities(limit=2, offset=4).entities) == 1


def test_search_ranks_names_and_aliases(graph: GraphService, databases: dict[str, str]) -> None:
    hits = graph.search("postgre")
    assert {h.entity.name for h in hits[:2]} == {"Postgres", "PostgreSQL"}
    assert hits == sorted(hits, key=lambda h: -h.score)
    assert all(h.score >= 60 for h in hits)
    graph.add_alias("Atlas", "order service")
    (hit,) = graph.search("order service", limit=1)
    assert hit.entity.name == "Atlas" and hit.matched == "order service" and hit.score == 100
    with pytest.raises(InvalidInputError):
        graph.search("?!")


def test_merge_moves_names_links_and_relations(
    engine: LocalEngine, graph: GraphService, databases: dict[str, str]
) -> None:
    before = by_name(engine)
    source, into = before["Postgres"], before["PostgreSQL"]
    merged = graph.merge("postgres", into.id[:8])
    after = by_name(engine)
    assert "Postgres" not in after and after["PostgreSQL"] == merged
    assert merged.aliases == ["Postgres"]
    assert set(merged.memory_ids) == set(databases.values())
    for memory in engine.store.get_memories(list(databases.values())):
        assert source.id not in memory.entity_ids
        assert memory.entity_ids.count(into.id) == 1
    names = {e.id: e.name for e in engine.store.all_entities()}
    facts = sorted(
        (names[r.subject_id], r.predicate, names[r.object_id]) for r in engine.store.all_relations()
    )
    # "Postgres same_as PostgreSQL" would now relate the entity to itself: dropped.
    assert facts == [("Atlas", "uses", "PostgreSQL"), ("Harbor", "uses", "PostgreSQL")]


def test_merge_drops_a_relation_the_survivor_already_states(
    engine: LocalEngine, graph: GraphService
) -> None:
    link(engine, graph, stored_memory(engine, "one"), [], [rel("Atlas", "uses", "Postgres")])
    link(engine, graph, stored_memory(engine, "two"), [], [rel("Atlas", "uses", "PostgreSQL")])
    graph.merge("Postgres", "PostgreSQL")
    assert len(engine.store.all_relations()) == 1


def test_merge_refuses_self_and_unknown(graph: GraphService, databases: dict[str, str]) -> None:
    with pytest.raises(InvalidInputError, match="same entity"):
        graph.merge("pg", "PG")
    with pytest.raises(NotFoundError):
        graph.merge("MySQL", "pg")


def test_add_alias_refuses_another_entitys_name_or_alias(
    engine: LocalEngine, graph: GraphService, databases: dict[str, str]
) -> None:
    with pytest.raises(InvalidInputError, match="entities merge"):
        graph.add_alias("Postgres", "PostgreSQL")
    graph.add_alias("PostgreSQL", "primary db")
    with pytest.raises(InvalidInputError, match="already names"):
        graph.add_alias("pg", "Primary DB")
    again = graph.add_alias("PostgreSQL", "primary-db")
    assert again.aliases == ["primary db"]
    with pytest.raises(InvalidInputError, match="empty"):
        graph.add_alias("pg", "...")


def test_rename_keeps_the_old_name_as_alias_and_re_embeds(
    engine: LocalEngine, graph: GraphService, databases: dict[str, str]
) -> None:
    renamed = graph.rename("pg", "Primary Postgres cluster")
    assert renamed.name == "Primary Postgres cluster" and renamed.aliases == ["pg"]
    vector = engine.embedder.embed_query("Primary Postgres cluster")
    top = engine.store.search_entities(vector, 1)[0]
    assert top.entity.id == renamed.id and top.score > 0.99
    assert graph.get("pg").id == renamed.id
    # Renaming to a current alias promotes it instead of duplicating it.
    back = graph.rename(renamed.id, "PG")
    assert back.name == "PG" and back.aliases == ["Primary Postgres cluster"]
    with pytest.raises(InvalidInputError, match="already names"):
        graph.rename("PG", "postgres")
