"""`cortex-tui mcp --http --tenants` in front of a real team server: every tenant reaches
its own memories through one MCP endpoint with its own key, and nothing of another's;
a key the server refuses (unknown, missing, revoked) gets 401 at the door."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from cortex_tui.tenants.registry import TenantRegistry
from tests.mcp_surface.test_mcp_server import call, error_of
from tests.server.conftest import service_env
from tests.server.team_server import TeamServer, mcp_front, team_server


@pytest.fixture
def front(tmp_path: Path) -> Iterator[tuple[TeamServer, str]]:
    """A team server, and the MCP endpoint in front of it."""
    with team_server(tmp_path / "server") as server, mcp_front(server, tmp_path / "front") as url:
        yield server, url


def as_tenant(url: str, key: str, use: Any) -> Any:
    async def run() -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await use(client)

    return asyncio.run(run())


def test_each_caller_reaches_its_own_tenant_only(front: tuple[TeamServer, str]) -> None:
    server, url = front
    registry = TenantRegistry(server.home)
    alice, bob = registry.add("alice")[1], registry.add("bob")[1]

    async def alice_remembers(client: Client) -> dict[str, Any]:
        return await call(client, "remember", content="The ledger service pages Priya first")

    made = as_tenant(url, alice, alice_remembers)["result"]["memory"]

    async def bob_looks(client: Client) -> tuple[dict[str, Any], dict[str, Any], str]:
        stats = await call(client, "stats")
        found = await call(client, "recall", query="who does the ledger service page first")
        missing = await error_of(client, "get", memory_id=made["id"])
        return stats, found, missing

    stats, found, missing = as_tenant(url, bob, bob_looks)
    assert stats["total"] == 0
    assert "Priya" not in str(found)
    assert "no memory" in missing

    async def alice_looks(client: Client) -> dict[str, Any]:
        return await call(client, "get", memory_id=made["id"])

    assert as_tenant(url, alice, alice_looks)["content"] == "The ledger service pages Priya first"

    assert httpx.post(url, json={}).status_code == 401
    assert httpx.post(url, json={}, headers={"Authorization": "Bearer nope"}).status_code == 401
    registry.revoke("alice")
    refused = httpx.post(url, json={}, headers={"Authorization": f"Bearer {alice}"})
    assert refused.status_code == 401


def test_tenants_needs_http_and_a_server(tmp_path: Path) -> None:
    for args, env, said in (
        (["--tenants"], {"CORTEX_URL": "http://127.0.0.1:9"}, "--http"),
        (["--http", "127.0.0.1:0", "--tenants"], {}, "CORTEX_URL"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "cortex_tui", "mcp", *args],
            env=service_env(tmp_path / "front", **env),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode != 0 and said in done.stderr
        assert done.stderr.count("\n") == 1
