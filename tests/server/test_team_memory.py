"""Team memory on a team server: memories with scope `team` are read and written by the
team's members, with each version's writer recorded, and by no one else; conflicts
between members' team memories are conflict groups like any other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cortex_tui.agent_turn.plan import PrePlan
from cortex_tui.clients.team_server import HOOK_CONTEXT_ROUTE
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.models import MemoryDraft, Scope
from cortex_tui.recall.request import RecallRequest
from cortex_tui.server.remote_routes import HookPlan
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.team_server import TeamServer, team_server

DEPLOYS = "The web team deploys to production on Thursdays only"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[TeamServer]:
    with team_server(tmp_path / "server") as running:
        yield running


def member(server: TeamServer, name: str, team: str | None) -> tuple[RemoteEngine, str]:
    key = TenantRegistry(server.home).add(name, team)[1]
    return server.engine(key), key


def contents(engine: RemoteEngine, recalled: str) -> list[str]:
    return [r.memory.content for r in engine.recall(RecallRequest(query=recalled)).results]


def test_members_share_team_memories_and_no_one_else_sees_them(server: TeamServer) -> None:
    alice, _ = member(server, "alice", "web")
    bob, bob_key = member(server, "bob", "web")
    carol, _ = member(server, "carol", None)
    shared = alice.remember(MemoryDraft(content=DEPLOYS, scope=Scope.TEAM)).memory
    assert shared.author == "alice" and shared.scope is Scope.TEAM
    alice.remember(MemoryDraft(content="Alice keeps her release notes in a private notebook"))
    bob.remember(MemoryDraft(content="Bob deploys his own side project on Sundays"))

    assert DEPLOYS in contents(bob, "when does the web team deploy to production")
    assert DEPLOYS not in contents(carol, "when does the web team deploy to production")
    assert "private notebook" not in " ".join(contents(bob, "where are the release notes kept"))
    assert "Sundays" in " ".join(contents(bob, "when does bob deploy his side project"))
    with pytest.raises(NotFoundError):
        carol.get(shared.id)
    # A member's prompt is given the team's memories too.
    asked = httpx.post(
        f"{server.url}{HOOK_CONTEXT_ROUTE}",
        headers={"Authorization": f"Bearer {bob_key}"},
        json={"query": "when can the web team deploy to production?", "session": "s"},
    )
    assert DEPLOYS in asked.json()["context"]
    # Listing: one's own memories, or the team's.
    team_list = bob.list_memories(MemoryFilter(scopes=[Scope.TEAM])).memories
    assert [m.content for m in team_list] == [DEPLOYS]
    assert DEPLOYS not in [m.content for m in bob.list_memories(MemoryFilter()).memories]
    # Written by another member: a new version that records its writer.
    changed = bob.update(shared.id, content=DEPLOYS.replace("Thursdays", "Wednesdays"))
    assert changed.author == "bob"
    assert [m.author for m in alice.history(changed.id)] == ["alice", "bob"]
    # No team, no team scope; the files are the team's own.
    with pytest.raises(InvalidInputError, match="scope team"):
        carol.remember(MemoryDraft(content="Carol's team rule", scope=Scope.TEAM))
    assert (server.home / "teams" / "web" / "store").is_dir()


def test_members_conflicting_team_memories_are_one_conflict_group(server: TeamServer) -> None:
    alice, _ = member(server, "alice", "web")
    bob, _ = member(server, "bob", "web")
    carol, _ = member(server, "carol", "ops")
    alice.remember(
        MemoryDraft(content="The web team's staging database runs PostgreSQL 15", scope=Scope.TEAM)
    )
    said = bob.remember(
        MemoryDraft(content="The web team's staging database runs PostgreSQL 16", scope=Scope.TEAM)
    )
    assert said.action.value == "conflict"
    groups = alice.curation.conflicts()
    assert [len(group.members) for group in groups] == [2]
    assert {m.author for m in groups[0].members} == {"alice", "bob"}
    assert bob.curation.conflicts()[0].id == groups[0].id
    assert carol.curation.conflicts() == []  # another team's
    kept = bob.curation.resolve(groups[0].id, said.memory.id)
    assert "PostgreSQL 16" in kept.content
    assert alice.curation.conflicts() == []


def test_joining_a_team_takes_effect_at_the_next_request(server: TeamServer) -> None:
    alice, _ = member(server, "alice", "web")
    dave, _ = member(server, "dave", None)
    alice.remember(MemoryDraft(content=DEPLOYS, scope=Scope.TEAM))
    assert DEPLOYS not in contents(dave, "when does the web team deploy")
    TenantRegistry(server.home).set_team("dave", "web")
    assert DEPLOYS in contents(dave, "when does the web team deploy")
    TenantRegistry(server.home).set_team("dave", None)
    assert DEPLOYS not in contents(dave, "when does the web team deploy")


def test_a_members_plan_reaches_the_server_whole() -> None:
    """The route's schema is a `PrePlan`'s fields and no other: a field added to the plan
    and not to the route (or the other way round) fails here, not in a member's turn."""
    plan = PrePlan(
        "which port does the gateway use",
        "github.com/acme/atlas",
        "s1",
        5000,
        True,
        legacy_project="atlas",
        agent="claude",
        trigger="resume",
    )
    checked = HookPlan.model_validate(plan.fields())
    assert set(HookPlan.model_fields) == set(plan.fields())
    assert PrePlan(**checked.model_dump()).fields() == plan.fields()
