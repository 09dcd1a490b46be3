"""A real `cortex-tui serve` subprocess on a fresh home (hashing embedder for speed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cortex_tui.clients import local_service
from cortex_tui.engine.remote import RemoteEngine


def service_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env.update(
        {
            "CORTEX_HOME": str(home),
            "CORTEX_EMBEDDER__KIND": "hashing",
            "CORTEX_DAEMON": "1",
            "CORTEX_HOOKS__PRE_TIMEOUT": "30",
        }
    )
    env.update(extra)
    return env


def remember_offline(home: Path, text: str, *args: str) -> None:
    """Store `text` through the CLI with no service (so none is started by it)."""
    subprocess.run(
        [sys.executable, "-m", "cortex_tui", "remember", text, *args],
        env=service_env(home, CORTEX_DAEMON="0"),
        check=True,
        capture_output=True,
    )


def start_service(
    home: Path, *args: str, log: Path | None = None, **env: str
) -> subprocess.Popen[str]:
    """`log`: where its output goes, for a service that talks for long (a pipe nobody
    reads fills up, and its next log line would block it)."""
    home.mkdir(parents=True, exist_ok=True)
    output = log.open("a") if log is not None else subprocess.PIPE
    process = subprocess.Popen(
        [sys.executable, "-m", "cortex_tui", "serve", "--home", str(home), *args],
        env=service_env(home, **env),
        stdout=output,
        stderr=output,
        text=True,
    )
    deadline = time.monotonic() + 60
    while local_service.status(home) is None:
        if process.poll() is not None:
            said = log.read_text() if log else process.stderr.read() if process.stderr else ""
            raise AssertionError(f"service exited: {said}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("service did not answer within 60 s")
        time.sleep(0.05)
    return process


def stop_service(home: Path, process: subprocess.Popen[str]) -> None:
    local_service.stop(home, wait=30)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def service_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "service-home"
    process = start_service(home)
    yield home
    stop_service(home, process)


@pytest.fixture
def remote(service_home: Path) -> Iterator[RemoteEngine]:
    engine = RemoteEngine.over_socket(service_home)
    yield engine
    engine.close()
