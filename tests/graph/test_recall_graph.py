"""End to end: memories linked by the graph service reach recall's graph channel."""

from __future__ import annotations

from datetime import timedelta

import pytest

from cortex_tui.engine.local import LocalEngine
from cortex_tui.graph.service import GraphService
from cortex_tui.models import EntityType, RecallResult
from cortex_tui.recall.request import RecallRequest
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

QUERY = "What is Priya working on?"


def results(engine: LocalEngine) -> dict[str, RecallResult]:
    response = engine.recall(RecallRequest(query=QUERY, limit=50, update_access=False))
    return {r.memory.id: r for r in response.results}


def test_graph_proximity_reaches_memories_hops_away(
    engine: LocalEngine, graph: GraphService
) -> None:
    lead = stored_memory(engine, "Priya leads the Atlas project.")
    uses = stored_memory(engine, "Atlas stores its orders in a database.")
    backups = stored_memory(engine, "Nightly backups of the cluster go to cold storage.")
    unrelated = stored_memory(engine, "The office coffee machine is descaled on Fridays.")
    before = results(engine)
    assert all(r.breakdown.signals["graph_proximity"].raw == 0 for r in before.values())

    link(
        engine,
        graph,
        lead,
        [ent("Priya", EntityType.PERSON), ent("Atlas", EntityType.PROJECT)],
        [rel("Priya", "leads", "Atlas")],
    )
    link(engine, graph, uses, [], [rel("Atlas", "uses", "Postgres")])
    link(engine, graph, backups, [ent("Postgres", EntityType.SYSTEM)])
    link(engine, graph, unrelated, [ent("Coffee machine", EntityType.TOOL)])

    after = results(engine)
    proximity = {m: r.breakdown.signals["graph_proximity"].raw for m, r in after.items()}
    # Mentions Priya: 1 hop; mentions Atlas, one relation away: 2; Postgres, two away: 3.
    assert proximity[lead.id] == pytest.approx(1.0)
    assert proximity[uses.id] == pytest.approx(0.5)
    assert proximity[backups.id] == pytest.approx(1 / 3)
    assert after[backups.id].breakdown.graph_hops == 3
    assert after[backups.id].breakdown.channels["graph"] is not None
    assert proximity[unrelated.id] == 0
    assert after[backups.id].score > before[backups.id].score


def test_closed_relations_do_not_carry_proximity(engine: LocalEngine, graph: GraphService) -> None:
    """Recall ranks by what is true now: a finished job no longer connects Priya to it."""
    old = stored_memory(engine, "Priya works at Initech.", NOW - timedelta(days=100))
    new = stored_memory(engine, "Priya works at Globex.", NOW - timedelta(days=10))
    initech_news = stored_memory(engine, "Initech moved its headquarters.")
    link(
        engine, graph, old, [ent("Priya", EntityType.PERSON)], [rel("Priya", "works_at", "Initech")]
    )
    link(
        engine, graph, new, [ent("Priya", EntityType.PERSON)], [rel("Priya", "works_at", "Globex")]
    )
    link(engine, graph, initech_news, [ent("Initech")])
    proximity = {m: r.breakdown.signals["graph_proximity"].raw for m, r in results(engine).items()}
    assert proximity[initech_news.id] == 0
    assert proximity[new.id] == pytest.approx(1.0)
