"""Fixtures for the real-agent tests: Claude Code installed from npm, the model stand-in,
and a git project wired to cortex-tui the way a person wires it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cortex_tui.clients import local_service
from tests.agents.claude_code import ClaudeCode, install_claude_code
from tests.agents.model_standin import ModelStandIn
from tests.agents.openclaw import OpenClaw, install_openclaw, openclaw_in
from tests.conftest import MODELS_ENV


@pytest.fixture(scope="session")
def claude_executable() -> Path:
    return install_claude_code()


@pytest.fixture
def model() -> Iterator[ModelStandIn]:
    standin = ModelStandIn()
    yield standin
    standin.close()
    standin.check()


@pytest.fixture
def claude(tmp_path: Path, claude_executable: Path, model: ModelStandIn) -> Iterator[ClaudeCode]:
    """Claude Code in a fresh HOME and git project, talking to the stand-in; the
    cortex-tui service its hooks start is stopped when the test ends."""
    home = tmp_path / "home"
    project = tmp_path / "harbor"
    cortex_home = tmp_path / "cortex"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "ANTHROPIC_"))}
    env |= {
        "HOME": str(home),
        "CORTEX_HOME": str(cortex_home),
        MODELS_ENV: os.environ[MODELS_ENV],
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "sk-ant-standin-not-a-real-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # MCP tools offered to the model directly, not behind a tool search.
        "ENABLE_TOOL_SEARCH": "false",
        # `claude -p` connects MCP servers in the background and sends the first
        # request with whichever are up: `cortex-tui mcp` answers in 1.5 s on an idle
        # machine, but the suite keeps both cores busy, and one CI run's first request
        # went without the memory tools. This makes it wait for the connection.
        "MCP_CONNECTION_NONBLOCKING": "false",
    }
    agent = ClaudeCode(claude_executable, home, project, env)
    yield agent
    local_service.stop(cortex_home, wait=30)


@pytest.fixture(scope="session")
def openclaw_install() -> tuple[Path, Path]:
    return install_openclaw()


@pytest.fixture
def openclaw(
    tmp_path: Path, openclaw_install: tuple[Path, Path], model: ModelStandIn
) -> Iterator[OpenClaw]:
    """OpenClaw in a fresh HOME whose agent works in the git project `harbor` and talks
    to the stand-in; the cortex-tui service its plugin starts is stopped at the end."""
    agent = openclaw_in(tmp_path, openclaw_install, model.url)
    yield agent
    local_service.stop(agent.env["CORTEX_HOME"], wait=30)


def wait_for(condition: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    """Poll `condition()` until it is true; fail naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.2)
