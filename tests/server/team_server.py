"""A real team server (`serve --tcp PORT --tenants`) for the tenancy tests, and its tenants."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.conftest import service_env, start_service, stop_service


def cortex(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`cortex-tui ARGS` as a member or an admin runs it, in `env`; its exit code is what
    the tests look at."""
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class TeamServer:
    home: Path
    url: str
    process: subprocess.Popen[str]

    def add_tenant(self, name: str) -> str:
        """A new tenant; its key."""
        return TenantRegistry(self.home).add(name)[1]

    def engine(self, key: str) -> RemoteEngine:
        return RemoteEngine.over_tcp(self.url, key)

    def get(self, path: str, key: str | None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
        return httpx.get(f"{self.url}{path}", headers=headers)


@contextmanager
def mcp_front(server: TeamServer, home: Path) -> Iterator[str]:
    """`cortex-tui mcp --http --tenants` in front of `server`; its endpoint's URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cortex_tui", "mcp", "--http", "127.0.0.1:0", "--tenants"],
        env=service_env(home, CORTEX_URL=server.url),
        stderr=subprocess.PIPE,  # one line, its URL; the rest goes to its log file
        text=True,
    )
    try:
        assert process.stderr is not None
        url = process.stderr.readline().strip().rpartition(" ")[2]
        assert url.endswith("/mcp"), url
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def team_server(home: Path, *args: str, **env: str) -> Iterator[TeamServer]:
    port = free_port()
    log = home.parent / f"{home.name}-serve.log"
    process = start_service(home, "--tcp", str(port), "--tenants", *args, log=log, **env)
    try:
        yield TeamServer(home, f"http://127.0.0.1:{port}", process)
    finally:
        stop_service(home, process)
