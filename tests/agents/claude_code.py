"""The real Claude Code, from npm at a pinned version, run as a person runs it.

It is installed once per machine into a cache folder outside the repository (xdist's
workers take turns through a file lock), and run with `claude -p` in a throwaway HOME,
pointed at the model stand-in on 127.0.0.1. In CI a machine without npm fails the run
with the reason: a skipped agent test would hide the very breakage it exists to catch.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.328"
CACHE_ENV = "CORTEX_TEST_AGENTS_CACHE"
"""Where the agents are installed (default: ~/.cache/cortex-tui-test-agents)."""
INSTALL_TIMEOUT = 600
SESSION_TIMEOUT = 180


def agents_cache() -> Path:
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "cortex-tui-test-agents"


def install_claude_code() -> Path:
    """The `claude` executable at the pinned version, installed first when missing."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            "npm not found: the real-agent tests install Claude Code with it; "
            "install Node.js and npm, then run the tests again",
            pytrace=False,
        )
    prefix = agents_cache() / f"claude-code-{CLAUDE_CODE_VERSION}"
    executable = prefix / "node_modules" / ".bin" / "claude"
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".install.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _version(executable) != CLAUDE_CODE_VERSION:
            done = subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(prefix),
                    "--no-save",
                    "--no-audit",
                    "--no-fund",
                    f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION}",
                ],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
            if done.returncode != 0 or _version(executable) != CLAUDE_CODE_VERSION:
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.fail(
                    f"cannot install {CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION} with npm "
                    f"into {prefix}: {last}",
                    pytrace=False,
                )
    return executable


def _version(executable: Path) -> str | None:
    if not executable.exists():
        return None
    try:
        done = subprocess.run(
            [str(executable), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    return words[0] if done.returncode == 0 and words else None


@dataclass
class ClaudeCode:
    """Claude Code for one test: its HOME, the project it runs in, and its environment
    (the model stand-in's address, the test's cortex-tui home)."""

    executable: Path
    home: Path
    project: Path
    env: dict[str, str]

    def run(self, prompt: str, *args: str, check: bool = True) -> Session:
        """One `claude -p` session (or a turn of one, with `--resume`)."""
        done = subprocess.run(
            [str(self.executable), "-p", prompt, "--output-format", "json", *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"claude exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}"
            )
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout else {}
        except ValueError:
            result = {}
        return Session(done.returncode, result, done.stderr)

    def cortex(self, *args: str, daemon: bool = False) -> subprocess.CompletedProcess[str]:
        """`cortex-tui` with this test's home, as the person runs it in the project."""
        env = {**self.env, "CORTEX_DAEMON": "1" if daemon else "0"}
        return subprocess.run(
            [sys.executable, "-m", "cortex_tui", *args],
            cwd=self.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )

    def transcripts(self) -> list[Path]:
        return sorted((self.home / ".claude" / "projects").rglob("*.jsonl"))


@dataclass
class Session:
    code: int
    result: dict[str, object]
    stderr: str

    @property
    def session_id(self) -> str:
        return str(self.result.get("session_id", ""))

    @property
    def reply(self) -> str:
        return str(self.result.get("result", ""))
