"""`cortex-tui mcp` as an MCP client meets it: a real server subprocess driven by the
SDK's own client, over stdio and over streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from cortex_tui.clients import local_service
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.store.base import MemoryFilter
from tests.conftest import make_engine
from tests.server.conftest import service_env, start_service, stop_service

T = TypeVar("T")

TOOL_NAMES = [
    "remember",
    "recall",
    "search",
    "get",
    "update",
    "forget",
    "list",
    "stats",
    "entities",
    "conflicts",
    "history",
    "given",
]


def mcp_env(home: Path, **extra: str) -> dict[str, str]:
    return service_env(home, **{"CORTEX_DAEMON": "0", **extra})


def session(home: Path, use: Callable[[Client], Awaitable[T]], **env: str) -> T:
    """Start `cortex-tui mcp` on `home`, run `use` with a connected client, stop it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cortex_tui", "mcp"], env=mcp_env(home, **env)
    )

    async def run() -> T:
        async with Client(params, read_timeout_seconds=120) as client:
            return await use(client)

    return asyncio.run(run())


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error_of(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    text = result.content[0]
    assert text.type == "text"
    return str(text.text)


def test_tools_are_listed_with_schemas_descriptions_and_hints(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert list(tools) == TOOL_NAMES
        for tool in tools.values():
            assert tool.description and tool.description.startswith("Call ")
            assert tool.output_schema is not None
            assert tool.input_schema["type"] == "object"
        assert tools["remember"].input_schema["required"] == ["content"]
        assert "breakdown" in tools["recall"].input_schema["properties"]
        assert tools["stats"].annotations and tools["stats"].annotations.read_only_hint
        forget = tools["forget"].annotations
        assert forget and forget.destructive_hint and not forget.read_only_hint
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["memory://{memory_id}"]

    session(tmp_path / "home", use)


def test_every_tool_answers_through_one_session(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        stored = await call(
            client,
            "remember",
            content="The billing service is deployed by Maria on Fridays",
            project="billing",
            tags=["deploy"],
        )
        assert stored["queued"] is False
        assert stored["result"]["action"] == "created"
        memory_id = stored["result"]["memory"]["id"]
        assert stored["result"]["memory"]["source"] == "mcp"

        recalled = await call(client, "recall", query="who deploys billing?", project="billing")
        assert recalled["results"][0]["memory"]["id"] == memory_id
        assert recalled["results"][0]["breakdown"] is None
        explained = await call(client, "recall", query="who deploys billing?", breakdown=True)
        assert explained["results"][0]["breakdown"]["signals"]
        assert explained["results"][0]["breakdown"]["gate"]["relevance"] > 0
        # min_relevance: what bears on the question, as a hook gives it; nothing else.
        gated = await call(client, "recall", query="who deploys billing?", min_relevance=0.5)
        assert [r["memory"]["id"] for r in gated["results"]] == [memory_id]
        nothing = await call(client, "recall", query="a limerick about a cat", min_relevance=0.5)
        assert (nothing["results"], nothing["held_back"]) == ([], 1)

        found = await call(client, "search", text="fridays")
        assert [m["id"] for m in found["memories"]] == [memory_id]
        assert (await call(client, "get", memory_id=memory_id[:8]))["content"].startswith(
            "The billing service"
        )
        listed = await call(client, "list", project="billing", project_only=True)
        assert listed["total"] == 1

        updated = await call(
            client, "update", memory_id=memory_id, content="Billing deploys on Thursdays"
        )
        assert updated["supersedes_id"] == memory_id
        chain = (await call(client, "history", memory_id=updated["id"]))["result"]
        assert [version["id"] for version in chain] == [memory_id, updated["id"]]

        stats = await call(client, "stats")
        assert stats["current"] == 1 and stats["superseded"] == 1

        conflicts = await call(client, "conflicts")
        assert conflicts == {"groups": [], "settled": []}

        resource = await client.read_resource(f"memory://{updated['id']}")
        body = resource.contents[0]
        assert body.mime_type == "application/json"
        assert json.loads(getattr(body, "text", ""))["content"] == "Billing deploys on Thursdays"

        forgotten = await call(client, "forget", memory_id=updated["id"])
        assert forgotten["status"] == "deleted"
        assert (await call(client, "search", text="thursdays"))["total"] == 0

    session(tmp_path / "home", use)


def test_entities_walk_a_neighbourhood_and_suggest_close_names(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    home = tmp_path / "home"
    seeding = make_engine(home, hashing_embedder)
    seeding.capture("User: the billing service stores its ledgers in Postgres.")
    seeding.close()

    async def use(client: Client) -> None:
        neighbourhood = await call(client, "entities", name="postgres")
        assert neighbourhood["center"]["name"] == "Postgres"
        assert "ledgers" in neighbourhood["nodes"][0]["memories"][0]["content"]
        missing = await error_of(client, "entities", name="Postgress DB")
        assert "closest names are Postgres" in missing

    session(home, use)


def test_conflicts_are_listed_and_settled(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        await call(client, "remember", content="The API is written in Go", project="api")
        clash = await call(client, "remember", content="The API is written in Rust", project="api")
        assert clash["result"]["action"] == "conflict"
        assert "same claim, a different value: Go → Rust" in clash["note"]
        assert (clash["result"]["reason"], clash["result"]["judge"]) == (clash["note"], "rules")
        groups = (await call(client, "conflicts"))["groups"]
        assert len(groups) == 1
        group = groups[0]
        keep = next(m["id"] for m in group["members"] if "Rust" in m["content"])
        settled = await call(client, "conflicts", action="keep", group_id=group["id"], keep_id=keep)
        assert [m["id"] for m in settled["settled"]] == [keep]
        assert settled["groups"] == []

    session(tmp_path / "home", use)


def test_bad_arguments_get_clear_errors_and_the_server_lives_on(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        assert "content" in await error_of(client, "remember")
        assert "limit" in await error_of(client, "recall", query="x", limit=0)
        assert "not-a-type" in await error_of(client, "list", types=["not-a-type"])
        assert "ffffffff" in await error_of(client, "get", memory_id="ffffffff")
        assert "needs group_id" in await error_of(client, "conflicts", action="merge")
        missing = await error_of(client, "entities", name="Nobody")
        assert "no entity is named 'Nobody'" in missing
        unknown = await client.call_tool("teleport", {})
        assert unknown.is_error
        with pytest.raises(Exception, match="ffffffff"):
            await client.read_resource("memory://ffffffff")
        assert (await call(client, "stats"))["total"] == 0

    session(tmp_path / "home", use)


def test_concurrent_calls_all_answer(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        writes = [
            call(client, "remember", content=f"Service {n} listens on port {8000 + n}")
            for n in range(6)
        ]
        await asyncio.gather(*writes)
        reads = [call(client, "recall", query=f"port of service {n}") for n in range(6)]
        reads += [call(client, "stats") for _ in range(4)]
        answers = await asyncio.gather(*reads)
        assert all(answer["results"] for answer in answers[:6])
        assert all(answer["current"] == 6 for answer in answers[6:])

    session(tmp_path / "home", use)


def test_a_busy_store_is_said_so_and_remember_waits_in_the_spool(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    """Another process owns the store: recall says the store is busy, remember is queued
    in the durable spool, and the service stores it once the store is free."""
    home = tmp_path / "home"
    owner = make_engine(home, hashing_embedder)

    async def use(client: Client) -> tuple[str, dict[str, Any]]:
        busy = await error_of(client, "recall", query="anything at all")
        queued = await call(client, "remember", content="Releases are tagged vYYYY.MM")
        return busy, queued

    try:
        busy, queued = session(home, use)
    finally:
        owner.close()
    assert busy.startswith("Error executing tool recall: the memory store is busy")
    assert queued["queued"] is True and queued["result"] is None
    assert "durable spool" in queued["note"]
    queued_by = datetime.now(UTC)

    process = start_service(home)
    try:
        engine = RemoteEngine.over_socket(home)
        try:
            for _ in range(600):
                page = engine.list_memories(MemoryFilter(text="releases"))
                if page.total:
                    break
                local_service.call(home, "POST", "/v1/spool/drain")
                time.sleep(0.05)
            assert [m.content for m in page.memories] == ["Releases are tagged vYYYY.MM"]
            assert page.memories[0].source == "mcp"
            assert page.memories[0].created_at <= queued_by  # when it was said, not stored
        finally:
            engine.close()
    finally:
        stop_service(home, process)


def test_a_stopped_service_is_started_again_on_the_next_call(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def use(client: Client) -> int:
        await call(client, "remember", content="Staging lives in eu-west-1")
        assert local_service.stop(home, wait=30)
        return int((await call(client, "stats"))["total"])

    try:
        assert session(home, use, CORTEX_DAEMON="1") == 1
    finally:
        local_service.stop(home, wait=30)


def test_http_transport_needs_the_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    refused = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "mcp", "--http", "127.0.0.1:0"],
        env=mcp_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode != 0
    assert refused.stderr.strip().splitlines() == [
        "cortex-tui mcp: --http needs an API key: set CORTEX_API_KEY to a long random secret"
    ]

    server = subprocess.Popen(
        [sys.executable, "-m", "cortex_tui", "mcp", "--http", "127.0.0.1:0"],
        env=mcp_env(home, CORTEX_API_KEY="s3cret-key"),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        url = server.stderr.readline().strip().rpartition(" ")[2]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert httpx.post(url, json={}).status_code == 401
        wrong = httpx.post(url, json={}, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401

        async def use() -> dict[str, Any]:
            headers = {"Authorization": "Bearer s3cret-key"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                await call(client, "remember", content="The on-call rota changes on Mondays")
                return await call(client, "stats")

        assert asyncio.run(use())["total"] == 1
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_headless_entry_point_parses_its_own_options(tmp_path: Path) -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--home", str(tmp_path), "mcp", "--help"],
        env={**os.environ, "CORTEX_DAEMON": "0"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0
    assert "--http" in shown.stdout


def test_a_memory_or_query_over_a_size_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    async def use(client: Client) -> None:
        content = await error_of(client, "remember", content="x" * 150)
        assert content == (
            "Error executing tool remember: memory content is 150 characters, over "
            "limits.content_chars (100); split it into smaller memories or raise the limit"
        )
        query = await error_of(client, "recall", query="atlas " * 20)
        assert "over limits.query_chars (100)" in query and "\n" not in query

    session(
        tmp_path / "home",
        use,
        CORTEX_LIMITS__CONTENT_CHARS="100",
        CORTEX_LIMITS__QUERY_CHARS="100",
    )
