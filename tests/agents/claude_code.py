"""The real Claude Code, from npm at a pinned version, run as a person runs it.

It is installed once per machine into the agents' cache folder (`npm_cache.py`), and
run with `claude -p` in a throwaway HOME, pointed at the model stand-in on 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.agents.cortex_cli import run_cortex
from tests.agents.npm_cache import first_line, npm_install

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.328"
SESSION_TIMEOUT = 180


def install_claude_code() -> Path:
    """The `claude` executable at the pinned version, installed first when missing."""
    return npm_install(
        f"claude-code-{CLAUDE_CODE_VERSION}",
        f"{CLAUDE_CODE_PACKAGE}@{CLAUDE_CODE_VERSION}",
        lambda prefix: prefix / "node_modules" / ".bin" / "claude",
        lambda executable: (
            first_line([str(executable), "--version"]).split()[:1] == [CLAUDE_CODE_VERSION]
        ),
    )


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
        return run_cortex(self.env, self.project, *args, daemon=daemon)

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
