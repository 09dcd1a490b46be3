"""`cortex-tui entities ...` as a user runs it: a real subprocess on a real store."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.models import EntityType
from tests.conftest import NOW, Cli, make_engine
from tests.graph.conftest import ent, graph_of, link, rel, stored_memory


@pytest.fixture
def team_cli(cli: Cli, hashing_embedder: Embedder) -> dict[str, str]:
    """A store the CLI opens afterwards: Priya leads Atlas; Bob moved Initech → Globex."""
    engine = make_engine(cli.home, hashing_embedder)
    graph = graph_of(engine)
    lead = stored_memory(engine, "Priya leads the Atlas project and approves its releases.")
    initech = stored_memory(engine, "Bob works at Initech.", NOW - timedelta(days=200))
    globex = stored_memory(engine, "Bob works at Globex.", NOW - timedelta(days=20))
    link(
        engine,
        graph,
        lead,
        [ent("Priya", EntityType.PERSON), ent("Atlas", EntityType.PROJECT)],
        [rel("Priya", "leads", "Atlas"), rel("Bob", "reports_to", "Priya")],
    )
    link(engine, graph, initech, [], [rel("Bob", "works_at", "Initech")])
    link(engine, graph, globex, [], [rel("Bob", "works_at", "Globex")])
    engine.close()
    return {"lead": lead.id, "initech": initech.id, "globex": globex.id}


def test_list_and_search(cli: Cli, team_cli: dict[str, str]) -> None:
    r = cli("entities", "list", "--json")
    assert r.code == 0, r.err
    page = json.loads(r.out)
    assert page["total"] == 5
    assert page["entities"][0]["name"] in {"Bob", "Priya"}
    r = cli("entities", "list", "--type", "person")
    assert r.code == 0, r.err
    assert "Priya" in r.out and "Atlas" not in r.out and "(1 of 1 entities)" in r.out

    r = cli("entities", "search", "priyaa", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)[0]["entity"]["name"] == "Priya"


def test_show_prints_a_tree_with_directions_validity_and_memories(
    cli: Cli, team_cli: dict[str, str]
) -> None:
    r = cli("entities", "show", "priya")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("Priya [person]")
    assert any("─leads→ Atlas [project]" in line and "· since" in line for line in lines)
    assert any("←reports_to─" in line and "Bob" in line for line in lines)
    assert any("─works_at→ Initech" in line and "(ended)" in line for line in lines)
    assert any(team_cli["lead"][:8] in line and "Priya leads the Atlas" in line for line in lines)

    r = cli("entities", "show", "Bob", "--hops", "1", "--json")
    assert r.code == 0, r.err
    view = json.loads(r.out)
    assert view["center"]["name"] == "Bob"
    assert {n["entity"]["name"]: n["hops"] for n in view["nodes"]} == {
        "Bob": 0,
        "Globex": 1,
        "Initech": 1,
        "Priya": 1,
    }
    assert sorted(e["current"] for e in view["edges"]) == [False, True, True]


def test_alias_rename_merge(cli: Cli, team_cli: dict[str, str]) -> None:
    r = cli("entities", "alias", "Atlas", "the monolith", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["aliases"] == ["the monolith"]
    r = cli("entities", "alias", "Globex", "Initech")
    assert r.code == 2 and "already names" in r.err and "entities merge" in r.err

    r = cli("entities", "rename", "the monolith", "Atlas Platform")
    assert r.code == 0, r.err
    assert "renamed 'Atlas' to 'Atlas Platform'" in r.out

    r = cli("entities", "merge", "Initech", "Globex", "--json")
    assert r.code == 0, r.err
    merged = json.loads(r.out)
    assert merged["name"] == "Globex" and merged["aliases"] == ["Initech"]
    assert set(merged["memory_ids"]) == {team_cli["initech"], team_cli["globex"]}
    r = cli("entities", "show", "initech", "--json")
    assert r.code == 0 and json.loads(r.out)["center"]["name"] == "Globex"


def test_errors_are_one_line_with_a_fix(cli: Cli, team_cli: dict[str, str]) -> None:
    r = cli("entities", "show", "Nobody")
    assert r.code == 1 and "entities search" in r.err and "Traceback" not in r.err
    r = cli("entities", "merge", "Bob", "bob")
    assert r.code == 2 and "same entity" in r.err
    r = cli("entities", "show", "Bob", "--hops", "9")
    assert r.code == 2 and "--hops" in r.err
    r = cli("entities")
    assert r.code == 2 and "ACTION" in r.err
