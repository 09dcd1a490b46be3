"""Finding, starting and stopping the local service, and a small client for its socket.

Standard library only: the hooks import this on every agent turn, and a hook talking to
a warm service must cost tens of milliseconds, not the ~0.3 s of loading pydantic.

One service owns a store (`$CORTEX_HOME/cortex.sock`). Starting is serialised by a file
lock, and a starter that finds a start already under way (a live pid in the marker
file) waits for it instead of spawning a second one.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cortex_tui.private import open_private, private_dir

SOCKET = "cortex.sock"
START_LOCK = "service-start.lock"
STARTING = "service-starting.pid"
SERVICE_LOG = "service.log"
SERVICE_LOCK = "service.lock"
START_MARKER_TTL = 60.0
POLL = 0.05


class ServiceUnavailable(Exception):
    """Nothing answers on the socket (not running, starting, or a stale socket file)."""


class ServiceError(Exception):
    """The service answered with an error; `kind` names the engine's error class."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def socket_path(home: Path) -> Path:
    return home / SOCKET


def daemon_enabled() -> bool:
    """False when `CORTEX_DAEMON` says 0/false/no/off: the caller runs the engine itself."""
    return os.environ.get("CORTEX_DAEMON", "1").strip().lower() not in ("0", "false", "no", "off")


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("cortex", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(str(self._path))
        except OSError:
            sock.close()
            raise
        self.sock = sock


def call(home: Path, method: str, path: str, payload: Any = None, *, timeout: float = 5.0) -> Any:
    """One JSON request to the service; the decoded JSON answer (None for an empty body)."""
    connection = _UnixConnection(socket_path(home), timeout)
    body = json.dumps(payload).encode() if payload is not None else None
    headers = {"Content-Type": "application/json"} if body is not None else {}
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
    except (OSError, http.client.HTTPException) as exc:
        raise ServiceUnavailable(f"no service on {socket_path(home)}: {exc}") from exc
    finally:
        connection.close()
    decoded = json.loads(data) if data else None
    if response.status >= 400:
        detail = decoded if isinstance(decoded, dict) else {}
        raise ServiceError(
            response.status,
            str(detail.get("error", "CortexError")),
            str(detail.get("message", f"the service answered HTTP {response.status}")),
        )
    return decoded


def status(home: Path, timeout: float = 1.0) -> dict[str, Any] | None:
    """The running service's status, or None when nothing answers."""
    try:
        answer = call(home, "GET", "/v1/status", timeout=timeout)
    except (ServiceUnavailable, ServiceError):
        return None
    return answer if isinstance(answer, dict) else None


def start(home: Path, *, wait: float) -> bool:
    """Start the service in the background unless it runs; True once it answers.

    Returns False when it did not answer within `wait` seconds (it may still be coming
    up: a hook with a tight budget gives up on this turn, the service keeps starting).
    """
    deadline = time.monotonic() + wait
    if status(home) is not None:
        return True
    private_dir(home)
    started, process = _spawn_unless_starting(home, deadline)
    if not started:
        return False
    while time.monotonic() < deadline:
        if status(home) is not None:
            return True
        if process is not None and process.poll() is not None:
            return False  # it refused to start (e.g. the store is locked): say so now
        time.sleep(POLL)
    return False


def _spawn_unless_starting(
    home: Path, deadline: float
) -> tuple[bool, subprocess.Popen[bytes] | None]:
    """(False, None) when the start lock stayed busy past the deadline; else True and
    the process spawned here (None when another caller's start is under way)."""
    with open_private(home / START_LOCK, "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False, None
                time.sleep(POLL)
        try:
            if status(home) is not None or _start_under_way(home):
                return True, None
            process = _spawn(home)
            with open_private(home / STARTING, "w") as marker:
                marker.write(f"{process.pid} {time.time()}")
            return True, process
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _start_under_way(home: Path) -> bool:
    try:
        pid_text, started = (home / STARTING).read_text().split()
        pid = int(pid_text)
        if time.time() - float(started) > START_MARKER_TTL:
            return False
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


REFUSAL_PREFIX = "cortex-tui serve: "
"""How the service's own error line starts in its log (`server/main.py` prints it)."""
SERVING_MARK = ": serving "
"""In the log line a service writes once it answers (`server/main.py`)."""


def start_refusal(home: Path) -> str | None:
    """Why the service last refused to start (a damaged or locked store, say): its log's
    last error line, when the log was written in the last minute and no service served
    after it."""
    log = home / "logs" / SERVICE_LOG
    try:
        if time.time() - log.stat().st_mtime > START_MARKER_TTL:
            return None
        with log.open("rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 8192))
            tail = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(tail):
        if line.startswith(REFUSAL_PREFIX):
            return line.removeprefix(REFUSAL_PREFIX)
        if SERVING_MARK in line:
            return None
    return None


def clear_start_marker(home: Path) -> None:
    """Called by the service once it answers (or fails): later starters may spawn again."""
    with contextlib.suppress(OSError):
        (home / STARTING).unlink()


def _spawn(home: Path) -> subprocess.Popen[bytes]:
    logs = home / "logs"
    private_dir(logs)
    with open_private(logs / SERVICE_LOG, "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "cortex_tui", "serve", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # the agent's process group may be killed; we live on
            close_fds=True,
            env={**os.environ, "CORTEX_HOME": str(home)},
        )


def stop(home: Path, *, wait: float = 30.0) -> bool:
    """Ask the service to finish in-flight work and exit; True once it is gone."""
    try:
        call(home, "POST", "/v1/shutdown", timeout=wait)
    except ServiceUnavailable:
        return True
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if _exited(home):
            return True
        time.sleep(POLL)
    return False


def _exited(home: Path) -> bool:
    """The service holds `service.lock` until its store is closed: free lock, gone service."""
    try:
        with open_private(home / SERVICE_LOCK, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return False
    return True
