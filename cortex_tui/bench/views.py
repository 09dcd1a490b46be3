"""The TUI's overview panes timed, for `cortex-tui bench --views`.

The measurement drives the real app (`cortex_tui.tui.bench`), which this layer may not
import: it runs in a process of its own, as the TUI does, with the bench's embedder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from cortex_tui.errors import CortexError


def bench_views(embedder: str, sizes: list[int]) -> list[dict[str, Any]]:
    env = {**os.environ, "CORTEX_EMBEDDER__KIND": embedder, "CORTEX_DAEMON": "0"}
    command = [sys.executable, "-m", "cortex_tui.tui.bench", "views", *map(str, sizes)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise CortexError(f"the TUI views bench failed: {tail[0]}")
    found: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found
