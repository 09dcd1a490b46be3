"""`cortex-tui` as the person beside a real agent runs it: the agent's environment (its
HOME, the test's data home), in the agent's project."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol


def run_cortex(
    env: dict[str, str], cwd: Path, *args: str, daemon: bool = False
) -> subprocess.CompletedProcess[str]:
    """One `cortex-tui` command; through the service with `daemon`, else in-process."""
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        cwd=cwd,
        env={**env, "CORTEX_DAEMON": "1" if daemon else "0"},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )


class RunsCortex(Protocol):
    def cortex(self, *args: str, daemon: bool = False) -> subprocess.CompletedProcess[str]: ...


def memories(agent: RunsCortex, words: str) -> list[dict[str, Any]]:
    """The current memories holding every one of `words`, through the running service."""
    listed = agent.cortex("search", words, "--json", daemon=True)
    return list(json.loads(listed.stdout)["memories"])


def spool_pending(agent: RunsCortex) -> int:
    """Turns the service has spooled and not captured yet."""
    status = agent.cortex("serve", "--status", "--json", daemon=True)
    return int(json.loads(status.stdout)["spool_pending"])
