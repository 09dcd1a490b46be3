"""A team server (`serve --tcp --tenants`) as its tenants and its owner meet it: keys let
in their own tenant only, a revoked key is refused at once, the routes that act on the
server are not theirs, and the owner's socket still serves the owner's store."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cortex_tui.clients import local_service
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import ConfigError, InvalidInputError, NotFoundError
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.server.conftest import remember_offline, service_env
from tests.server.team_server import TeamServer, cortex, free_port, team_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[TeamServer]:
    home = tmp_path / "server"
    remember_offline(home, "The owner's pager code is in the blue binder")
    with team_server(home) as running:
        yield running


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return cortex(service_env(home, **env), *args)


def test_each_key_reaches_its_own_tenant_and_no_other(server: TeamServer) -> None:
    alice = server.engine(server.add_tenant("alice"))
    bob = server.engine(server.add_tenant("bob"))
    made = alice.remember(MemoryDraft(content="Alice's team deploys the billing API with Argo CD"))
    assert alice.overview.stats().total == 1
    assert bob.overview.stats().total == 0
    with pytest.raises(NotFoundError):
        bob.get(made.memory.id)
    with pytest.raises(NotFoundError):
        bob.resolve_id(made.memory.id[:6])
    found = bob.recall(RecallRequest(query="how does the billing API deploy with Argo CD"))
    assert found.results == []
    # The owner's store, on the Unix socket, is neither tenant's.
    assert bob.recall(RecallRequest(query="the owner's pager code")).results == []
    owner = RemoteEngine.over_socket(server.home)
    assert [m.content for m in owner.list_memories(MemoryFilter()).memories] == [
        "The owner's pager code is in the blue binder"
    ]
    owner.close()
    # Each tenant's data lives in its own folder under the server's home.
    assert (server.home / "tenants" / "alice" / "store").is_dir()
    assert (server.home / "tenants" / "bob" / "store").is_dir()


def test_missing_unknown_malformed_and_revoked_keys_get_401_and_nothing_else(
    server: TeamServer, tmp_path: Path
) -> None:
    key = server.add_tenant("carol")
    carol = server.engine(key)
    carol.remember(MemoryDraft(content="Carol rotates the staging certificates on Mondays"))
    for given in (None, "nope", key[:-1] + ("A" if key[-1] != "A" else "B"), key + "x"):
        answer = server.get("/v1/stats", given)
        assert answer.status_code == 401
        assert answer.json() == {"error": "Unauthorised", "message": "missing or wrong API key"}
    assert httpx.get(f"{server.url}/v1/stats", headers={"Authorization": key}).status_code == 401
    # Revoked from the CLI while carol's client is connected: refused from the next call.
    assert cli(server.home, "--home", str(server.home), "tenant", "revoke", "carol").returncode == 0
    with pytest.raises(ConfigError, match="refused the API key"):
        carol.overview.stats()
    rotated = cli(server.home, "--home", str(server.home), "tenant", "rotate", "carol")
    new_key = rotated.stdout.strip()
    assert rotated.returncode == 0 and new_key != key
    assert server.get("/v1/stats", key).status_code == 401
    assert server.engine(new_key).overview.stats().total == 1  # the memories stayed


def test_routes_acting_on_the_server_are_not_a_tenants(server: TeamServer) -> None:
    key = server.add_tenant("dave")
    auth = {"Authorization": f"Bearer {key}"}
    assert httpx.post(f"{server.url}/v1/shutdown", headers=auth).status_code == 404
    assert httpx.post(f"{server.url}/v1/sync/watch", headers=auth).status_code == 404
    event = {"hook_event_name": "Stop", "transcript_path": "/etc/passwd", "session_id": "s"}
    raw = httpx.post(f"{server.url}{local_service.POST_HOOK_ROUTE}", headers=auth, json=event)
    assert raw.status_code == 404
    assert httpx.get(f"{server.url}/v1/status", headers=auth).json() == {
        "tenant": "dave",
        "spool_pending": 0,
        "captured": 0,
    }
    dave = server.engine(key)
    with pytest.raises(InvalidInputError, match="own folder"):
        dave.upkeep.backup(str(server.home / "stolen.db"))
    report = dave.upkeep.backup(None)
    assert Path(report.path).is_relative_to(server.home / "tenants" / "dave")
    assert local_service.status(server.home) is not None  # still serving


def test_tenants_need_tcp_and_a_home_that_keeps_its_memories(tmp_path: Path) -> None:
    home = tmp_path / "home"
    alone = cli(home, "serve", "--home", str(home), "--tenants")
    assert alone.returncode == 1 and "--tcp" in alone.stderr
    elsewhere = cli(
        home,
        "serve",
        "--home",
        str(home),
        "--tcp",
        str(free_port()),
        "--tenants",
        CORTEX_URL="http://127.0.0.1:9",
    )
    assert elsewhere.returncode == 1 and "sends its memories to" in elsewhere.stderr


def test_stores_past_the_open_limit_are_closed_and_reopened_intact(tmp_path: Path) -> None:
    with team_server(tmp_path / "server", CORTEX_TENANTS__OPEN_STORES="2") as server:
        keys = {name: server.add_tenant(name) for name in ("ana", "ben", "cai")}
        for round_ in range(3):
            for name, key in keys.items():
                server.engine(key).remember(
                    MemoryDraft(content=f"{name.capitalize()} deploys service number {round_}")
                )
        for name, key in keys.items():
            held = server.engine(key).list_memories(MemoryFilter()).memories
            assert sorted(m.content for m in held) == [
                f"{name.capitalize()} deploys service number {n}" for n in range(3)
            ]
        log = (tmp_path / "server-serve.log").read_text()
        assert "unused longest" in log
