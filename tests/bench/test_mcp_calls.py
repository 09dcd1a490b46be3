"""The MCP row of `cortex-tui bench`: real tool calls over stdio, timed and summarised."""

from __future__ import annotations

from pathlib import Path

from cortex_tui.bench.mcp_calls import bench_mcp
from cortex_tui.config import load_settings
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.open import open_engine
from cortex_tui.models import MemoryDraft


def seed(home: Path) -> None:
    engine = open_engine(load_settings(home), embedder=HashingEmbedder())
    try:
        engine.remember(MemoryDraft(content="The nightly build runs at 02:00 UTC"))
    finally:
        engine.close()


def test_tool_calls_are_timed_through_a_real_server() -> None:
    prompts = ["when does the nightly build run?", "who reviews the release?", "what port?"]
    report = bench_mcp(seed, "hashing", prompts, runs=3)
    assert report["server_start_ms"] > 0
    for row in ("recall_call", "remember_call"):
        assert report[row]["runs"] == 3
        assert 0 < report[row]["p50_ms"] <= report[row]["p95_ms"]
