"""MCP `search` with `include_archive`: what was said in a captured turn, which no memory
holds, comes back as a dated quote when asked for, and never otherwise (the real server
subprocess, driven by the SDK's own client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from cortex_tui.embed.base import Embedder
from tests.conftest import make_engine
from tests.mcp_surface.test_mcp_server import call, error_of, session

PASSING = (
    "Can you look at why the nightly import is slow? Hmm, maybe it is the Marrowglen "
    "fixture, the one that seeds forty thousand rows before each run."
)
ANSWER = "I profiled the nightly import: most of the time goes to the index rebuild at the end."


def test_search_quotes_what_was_said_only_with_include_archive(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    home = tmp_path / "home"
    seeding = make_engine(home, hashing_embedder)  # its clock: 2026-06-01 12:00 UTC
    try:
        seeding.capture(f"User: {PASSING}\n\nAssistant: {ANSWER}", session_id="session-a")
        archived = {m.id: m.speaker for m in seeding.archive.session("session-a")}
    finally:
        seeding.close()

    async def use(client: Client) -> dict[str, Any]:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["search"].input_schema["properties"]["include_archive"]
        assert schema["type"] == "boolean" and schema["default"] is False
        assert "include_archive" in (tools["search"].description or "")

        plain = await call(client, "search", text="marrowglen fixture")
        assert (plain["memories"], plain["quotes"]) == ([], [])  # no memory holds it
        quoted = await call(client, "search", text="marrowglen fixture", include_archive=True)
        assert quoted["memories"] == [] and quoted["total"] == 0
        # Near in meaning is not enough: the tool promises the words.
        unsaid = await call(client, "search", text="marrowglen quillfeather", include_archive=True)
        assert unsaid["quotes"] == []
        return quoted

    quoted = session(home, use)
    (quote,) = quoted["quotes"]
    assert "Marrowglen fixture" in quote["text"] and "forty thousand rows" in quote["text"]
    assert archived[quote["id"]] == "user"  # the archived message `sessions show` lists
    assert (quote["session_id"], quote["turn"], quote["speaker"]) == ("session-a", 0, "user")
    assert quote["said_at"].startswith("2026-06-01T12:00")
    assert set(quote) == {"id", "said_at", "session_id", "turn", "speaker", "project", "text"}


def test_include_archive_with_the_archive_off_says_so_in_one_line(tmp_path: Path) -> None:
    async def use(client: Client) -> str:
        plain = await call(client, "search", text="marrowglen")
        assert plain["quotes"] == []
        return await error_of(client, "search", text="marrowglen", include_archive=True)

    refused = session(tmp_path / "home", use, CORTEX_ARCHIVE__ENABLED="false")
    assert refused == (
        "Error executing tool search: the turn archive is off (archive.enabled = false): "
        "nothing to search"
    )
