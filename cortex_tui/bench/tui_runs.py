"""The TUI timed, for `cortex-tui bench`: its first frame and its overview panes.

The measurements drive the real app (`cortex_tui.tui.latency`), which this layer may not
import: they run in a process of their own, as the TUI does, with the bench's embedder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from cortex_tui.errors import CortexError


def bench_views(embedder: str, sizes: list[int]) -> list[dict[str, Any]]:
    """The Map, Words, Days and Health panes, key to drawn, on stores of `sizes`."""
    found: list[dict[str, Any]] = _tui_bench(embedder, "views", *map(str, sizes))
    return found


def bench_first_frame(embedder: str, runs: int) -> dict[str, Any]:
    """The first frame of the demo and of an empty store with no service running."""
    found: dict[str, Any] = _tui_bench(embedder, "first-frame", str(runs))
    return found


def _tui_bench(embedder: str, *args: str) -> Any:
    env = {**os.environ, "CORTEX_EMBEDDER__KIND": embedder, "CORTEX_DAEMON": "0"}
    command = [sys.executable, "-m", "cortex_tui.tui.latency", *args]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise CortexError(f"the TUI bench ({args[0]}) failed: {tail[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
