"""Entity curation is undoable: merge, alias and rename through the engine, then `undo`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from cortex_tui.curation import journal
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError, NotFoundError, StoreError
from cortex_tui.models import Entity, EntityType, Memory, MemoryStatus, Relation
from cortex_tui.store.base import JournalEntry, MemoryFilter
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

SYSTEM = EntityType.SYSTEM

Snapshot = tuple[dict[str, Entity], dict[str, Relation], dict[str, Memory]]


@pytest.fixture
def databases(engine: LocalEngine) -> dict[str, str]:
    """Postgres and PostgreSQL, one database: relations that move, repeat or loop."""
    graph = engine.graph
    a = stored_memory(engine, "Atlas uses Postgres for orders.")
    b = stored_memory(engine, "PostgreSQL backups run nightly; Atlas uses PostgreSQL.")
    c = stored_memory(engine, "Harbor also uses PostgreSQL; Postgres is PostgreSQL.")
    d = stored_memory(engine, "Billing reads from Postgres.")
    link(engine, graph, a, [ent("Postgres", SYSTEM)], [rel("Atlas", "uses", "Postgres")])
    link(
        engine,
        graph,
        b,
        [ent("PostgreSQL", SYSTEM), ent("pg", SYSTEM)],
        [rel("Atlas", "uses", "PostgreSQL")],  # Atlas-uses-Postgres repeats it: dropped
    )
    link(
        engine,
        graph,
        c,
        [ent("Postgres", SYSTEM), ent("PostgreSQL", SYSTEM)],
        # same_as would relate the survivor to itself: dropped
        [rel("Harbor", "uses", "PostgreSQL"), rel("Postgres", "same_as", "PostgreSQL")],
    )
    link(engine, graph, d, [ent("Postgres", SYSTEM)], [rel("Billing", "reads", "Postgres")])
    engine.graph.add_alias("Postgres", "pgsql")
    engine.store.delete_journal([e.id for e in engine.store.journal()])  # set-up, not curation
    return {"a": a.id, "b": b.id, "c": c.id, "d": d.id}


def snapshot(engine: LocalEngine) -> Snapshot:
    everything = MemoryFilter(current_only=False, statuses=None)
    return (
        {e.id: e for e in engine.store.all_entities()},
        {r.id: r for r in engine.store.all_relations()},
        {m.id: m for m in engine.store.iter_memories(everything)},
    )


def top_entity_for(engine: LocalEngine, name: str) -> tuple[str, float]:
    hit = engine.store.search_entities(engine.embedder.embed_query(name), 1)[0]
    return hit.entity.id, hit.score


def test_undo_of_a_merge_puts_both_entities_relations_and_links_back(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    before = snapshot(engine)
    source = engine.graph.get("Postgres")
    into = engine.graph.get("PostgreSQL")
    survivor = engine.graph.merge("Postgres", "PostgreSQL")
    assert survivor.id == into.id and "Postgres" in survivor.aliases
    merged = snapshot(engine)
    moved = [r for r in merged[1].values() if r.id in before[1] and r != before[1][r.id]]
    assert len(merged[1]) == len(before[1]) - 2  # same_as and the repeated "Atlas uses"
    assert len(moved) == 1  # Billing reads Postgres, now PostgreSQL
    with pytest.raises(NotFoundError):
        engine.graph.get(source.id)

    (undone,) = engine.curation.undo()

    assert undone.action == "entity-merge"
    assert "'Postgres'" in undone.payload["note"] and "'PostgreSQL'" in undone.payload["note"]
    assert snapshot(engine) == before  # entities, relations and every memory, exactly
    assert engine.graph.get("Postgres").id == source.id
    assert engine.graph.get("pgsql").id == source.id
    assert engine.graph.search("Postgres", limit=1)[0].entity.id == source.id
    assert top_entity_for(engine, "Postgres") == (source.id, pytest.approx(1.0, abs=1e-4))
    assert engine.store.journal() == []
    hood = engine.graph.neighbourhood(source.id, hops=1)
    assert {n.entity.name for n in hood.nodes} >= {"Atlas", "Billing", "PostgreSQL"}


def test_merge_entry_is_written_before_the_merge_so_a_crash_halfway_undoes(
    engine: LocalEngine, databases: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(engine)

    def crash(ids: Any) -> None:
        raise StoreError("disk full")

    # Everything but the last write (deleting the source) has happened.
    monkeypatch.setattr(engine.store, "delete_entities", crash)
    with pytest.raises(StoreError):
        engine.graph.merge("Postgres", "PostgreSQL")
    monkeypatch.undo()
    assert snapshot(engine) != before
    assert [e.action for e in engine.store.journal()] == ["entity-merge"]

    engine.curation.undo()
    assert snapshot(engine) == before


def test_mentions_linked_after_a_merge_survive_its_undo(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    source = engine.graph.get("Postgres")
    engine.graph.merge("Postgres", "PostgreSQL")
    later = stored_memory(engine, "Postgres 17 upgrade is planned.")
    later = link(engine, engine.graph, later, [ent("Postgres", SYSTEM)])
    into = engine.graph.get("PostgreSQL")
    assert later.entity_ids == [into.id] and later.id in into.memory_ids

    engine.curation.undo()

    assert later.id in engine.graph.get(into.id).memory_ids  # still linked both ways
    assert engine.store.get_memories([later.id])[0].entity_ids == [into.id]
    assert later.id not in engine.graph.get(source.id).memory_ids


def test_undo_of_an_alias(engine: LocalEngine, databases: dict[str, str]) -> None:
    before = snapshot(engine)
    engine.graph.add_alias("PostgreSQL", "primary db")
    assert engine.graph.get("primary db").name == "PostgreSQL"

    (undone,) = engine.curation.undo()

    assert undone.action == "entity-alias" and "'primary db'" in undone.payload["note"]
    assert snapshot(engine) == before
    with pytest.raises(NotFoundError):
        engine.graph.get("primary db")


def test_an_alias_already_there_is_not_journalled(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    engine.graph.add_alias("Postgres", "PGSQL")
    assert engine.store.journal() == []
    with pytest.raises(InvalidInputError, match="nothing to undo"):
        engine.curation.undo()


def test_undo_of_a_rename_restores_the_name_and_its_vector(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    before = snapshot(engine)
    pg = engine.graph.get("pg")
    renamed = engine.graph.rename("pg", "Primary Postgres cluster")
    assert top_entity_for(engine, "Primary Postgres cluster")[0] == pg.id
    assert engine.graph.rename(pg.id, "Primary Postgres cluster") == renamed  # no-op
    assert len(engine.store.journal()) == 1

    (undone,) = engine.curation.undo()

    assert undone.action == "entity-rename"
    assert "'pg'" in undone.payload["note"] and "Primary Postgres cluster" in undone.payload["note"]
    assert snapshot(engine) == before
    assert engine.graph.get("pg").aliases == []
    with pytest.raises(NotFoundError):
        engine.graph.get("Primary Postgres cluster")
    assert top_entity_for(engine, "pg") == (pg.id, pytest.approx(1.0, abs=1e-4))
    assert engine.graph.search("pg", limit=1)[0].entity.id == pg.id


def test_several_entity_actions_undo_newest_first(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    before = snapshot(engine)
    engine.graph.merge("Postgres", "PostgreSQL")
    engine.graph.rename("PostgreSQL", "Primary database")
    engine.graph.add_alias("Primary database", "main db")
    engine.graph.merge("pg", "Primary database")

    undone = engine.curation.undo(4)

    assert [e.action for e in undone] == [
        "entity-merge",
        "entity-alias",
        "entity-rename",
        "entity-merge",
    ]
    assert snapshot(engine) == before
    assert top_entity_for(engine, "PostgreSQL")[1] == pytest.approx(1.0, abs=1e-4)


def test_memory_and_entity_undo_interleave(engine: LocalEngine, databases: dict[str, str]) -> None:
    before = snapshot(engine)
    engine.forget(databases["d"])
    engine.graph.merge("Postgres", "PostgreSQL")
    assert [e.action for e in engine.curation.undo(2)] == ["entity-merge", "forget"]
    assert snapshot(engine) == before


def test_an_entry_from_before_entity_undo_still_undoes(engine: LocalEngine) -> None:
    memory = stored_memory(engine, "The deploy window is Friday.")
    old = JournalEntry(
        id="00000000-0000-4000-8000-000000000001",
        created_at=NOW,
        action="forget",
        payload={"before": [memory.model_dump(mode="json")], "created": [], "note": ""},
    )
    engine.store.update_memories([memory.model_copy(update={"status": MemoryStatus.DELETED})])
    engine.store.append_journal(old)
    (undone,) = engine.curation.undo()
    assert undone.id == old.id
    assert engine.store.get_memories([memory.id]) == [memory]


def test_undo_tells_the_graph_so_its_index_is_rebuilt(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    source = engine.graph.get("Postgres")
    engine.graph.merge("Postgres", "PostgreSQL")
    assert source.id not in engine.graph_index().entities  # cached, without the source
    journal.undo(engine.store, engine.clock(), graph=engine.graph)
    assert source.id in engine.graph_index().entities


def test_engine_undo_drops_the_graph_index(engine: LocalEngine, databases: dict[str, str]) -> None:
    source = engine.graph.get("Postgres")
    engine.graph.merge("Postgres", "PostgreSQL")
    assert source.id not in engine.graph_index().entities
    engine.curation.undo()
    assert source.id in engine.graph_index().entities


def test_vectors_of_another_embedder_are_made_again_or_refused(
    engine: LocalEngine, databases: dict[str, str]
) -> None:
    """After a re-embed the saved name vectors no longer fit the store."""
    before = snapshot(engine)
    source = engine.graph.get("Postgres")
    engine.graph.merge("Postgres", "PostgreSQL")
    (entry,) = engine.store.journal()
    engine.store.delete_journal([entry.id])
    payload = {**entry.payload, "embedder": "some-older-model"}
    payload["entities"] = [{**e, "vector": [0.5, 0.5]} for e in payload["entities"]]
    engine.store.append_journal(replace(entry, payload=payload))
    merged = snapshot(engine)

    with pytest.raises(InvalidInputError, match="some-older-model"):
        journal.undo(engine.store, engine.clock())
    assert snapshot(engine) == merged  # refused before any write

    journal.undo(engine.store, engine.clock(), graph=engine.graph)
    assert snapshot(engine) == before
    assert top_entity_for(engine, "Postgres") == (source.id, pytest.approx(1.0, abs=1e-4))
