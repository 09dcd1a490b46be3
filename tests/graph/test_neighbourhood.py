"""The neighbourhood view: hop distances, directions, closed edges, mentioning memories."""

from __future__ import annotations

from datetime import timedelta

import pytest

from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.graph.service import GraphService
from cortex_tui.models import EntityType
from tests.conftest import NOW
from tests.graph.conftest import ent, link, rel, stored_memory

T1, T2 = NOW - timedelta(days=200), NOW - timedelta(days=100)


@pytest.fixture
def team(engine: LocalEngine, graph: GraphService) -> dict[str, str]:
    """Priya leads Atlas; Atlas uses Postgres; Postgres runs_on Kubernetes (3 hops out);
    Bob reports_to Priya; Bob worked at Initech, now at Globex."""
    memories = {
        "lead": stored_memory(engine, "Priya leads Atlas.", T1),
        "uses": stored_memory(engine, "Atlas stores everything in Postgres.", T1),
        "runs": stored_memory(engine, "Postgres runs on the Kubernetes cluster.", T1),
        "bob": stored_memory(engine, "Bob reports to Priya.", T1),
        "initech": stored_memory(engine, "Bob works at Initech.", T1),
        "globex": stored_memory(engine, "Bob works at Globex now.", T2),
    }
    link(
        engine,
        graph,
        memories["lead"],
        [ent("Priya", EntityType.PERSON)],
        [rel("Priya", "leads", "Atlas")],
    )
    link(engine, graph, memories["uses"], [], [rel("Atlas", "uses", "Postgres")])
    link(engine, graph, memories["runs"], [], [rel("Postgres", "runs_on", "Kubernetes")])
    link(engine, graph, memories["bob"], [], [rel("Bob", "reports_to", "Priya")])
    link(engine, graph, memories["initech"], [], [rel("Bob", "works_at", "Initech")])
    link(engine, graph, memories["globex"], [], [rel("Bob", "works_at", "Globex")])
    engine.forget(memories["initech"].id)
    return {key: m.id for key, m in memories.items()}


def test_two_hops_with_distances_and_directions(graph: GraphService, team: dict[str, str]) -> None:
    view = graph.neighbourhood("priya", hops=2)
    hops = {n.entity.name: n.hops for n in view.nodes}
    assert hops == {
        "Priya": 0,
        "Atlas": 1,
        "Bob": 1,
        "Postgres": 2,
        "Globex": 2,
        "Initech": 2,
    }
    assert view.nodes[0].entity == view.center and view.center.name == "Priya"
    names = {n.entity.id: n.entity.name for n in view.nodes}
    via = {n.entity.name: names.get(n.via or "") for n in view.nodes}
    assert via["Postgres"] == "Atlas" and via["Globex"] == "Bob" and via["Priya"] is None
    edges = {
        (names[e.relation.subject_id], e.relation.predicate, names[e.relation.object_id]): e
        for e in view.edges
    }
    assert set(edges) == {
        ("Priya", "leads", "Atlas"),
        ("Atlas", "uses", "Postgres"),
        ("Bob", "reports_to", "Priya"),
        ("Bob", "works_at", "Initech"),
        ("Bob", "works_at", "Globex"),
    }
    assert edges[("Priya", "leads", "Atlas")].direction == "out"
    assert edges[("Bob", "reports_to", "Priya")].direction == "in"
    assert edges[("Bob", "works_at", "Globex")].direction == "out"
    closed = edges[("Bob", "works_at", "Initech")]
    assert not closed.current and closed.relation.valid_to == T2
    assert edges[("Bob", "works_at", "Globex")].current


def test_memories_per_node_current_ones_as_objects(
    graph: GraphService, team: dict[str, str]
) -> None:
    view = graph.neighbourhood("Bob", hops=1)
    nodes = {n.entity.name: n for n in view.nodes}
    initech = nodes["Initech"]
    assert initech.memory_ids == [team["initech"]]
    assert initech.memories == []  # forgotten: listed by id only
    assert [m.id for m in nodes["Globex"].memories] == [team["globex"]]
    assert {m.id for m in nodes["Bob"].memories} == {team["bob"], team["globex"]}


def test_edges_among_the_outermost_nodes_are_included(
    engine: LocalEngine, graph: GraphService
) -> None:
    memory = stored_memory(engine, "A triangle.")
    link(
        engine,
        graph,
        memory,
        [],
        [rel("Hub", "has", "Left"), rel("Hub", "has", "Right"), rel("Left", "feeds", "Right")],
    )
    view = graph.neighbourhood("Hub", hops=1)
    across = [e for e in view.edges if e.direction == "across"]
    assert [e.relation.predicate for e in across] == ["feeds"]


def test_zero_hops_is_the_entity_alone(graph: GraphService, team: dict[str, str]) -> None:
    view = graph.neighbourhood("Priya", hops=0)
    assert [n.entity.name for n in view.nodes] == ["Priya"] and view.edges == []
    with pytest.raises(InvalidInputError):
        graph.neighbourhood("Priya", hops=-1)
