"""What an MCP client waits for: tool calls to a real `cortex-tui mcp` over stdio.

The server is started as a client starts it (a subprocess speaking JSON-RPC on its
standard streams) against a seeded store whose service runs, and driven by the MCP SDK's
own client; each call is timed from the client's side, so framing, validation, the
service round trip and the engine are all in the figure.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from cortex_tui.bench.hooks import served_home
from cortex_tui.bench.timing import Timing


def bench_mcp(
    seed_store: Callable[[Path], None], embedder_kind: str, prompts: list[str], runs: int
) -> dict[str, Any]:
    with served_home(seed_store, embedder_kind) as (_home, env, _cold_start):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "cortex_tui", "mcp"], env=env
        )
        return asyncio.run(_calls(params, prompts[:runs]))


async def _calls(params: StdioServerParameters, prompts: list[str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        connected = time.perf_counter() - t0
        await client.call_tool("stats", {})  # the engine link is made on first use
        recall, remember = Timing(), Timing()
        for prompt in prompts:
            recall.samples.append(await _timed(client, "recall", {"query": prompt}))
        for i, prompt in enumerate(prompts):
            fact = {"content": f"We decided {prompt} (option {i})"}
            remember.samples.append(await _timed(client, "remember", fact))
    return {
        "server_start_ms": round(connected * 1000, 1),
        "recall_call": recall.summary(),
        "remember_call": remember.summary(),
    }


async def _timed(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    t0 = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    elapsed = time.perf_counter() - t0
    if result.is_error:
        raise RuntimeError(f"the {tool} tool failed: {result.content}")
    return elapsed
