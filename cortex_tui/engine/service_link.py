"""Finding, starting and stopping the local service, and a small client for its socket.

Standard library only, and little of it: the hooks import this on every agent turn, and
a hook talking to a warm service must cost tens of milliseconds, not the ~0.3 s of
loading pydantic. The socket speaks plain HTTP/1.1 by hand (one request per connection):
`http.client` alone costs a hook process ~20 ms to import.

One service owns a store (`$CORTEX_HOME/cortex.sock`). Starting is serialised by a file
lock, and a starter that finds a start already under way (a live pid in the marker
file) waits for it instead of spawning a second one.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any

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


def call(home: Path, method: str, path: str, payload: Any = None, *, timeout: float = 5.0) -> Any:
    """One JSON request to the service; the decoded JSON answer (None for an empty body).
    `timeout` bounds each wait on the socket (connect, send, each read)."""
    body = json.dumps(payload).encode() if payload is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: cortex\r\nConnection: close\r\n"
    if payload is not None:
        head += "Content-Type: application/json\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(socket_path(home)))
            sock.sendall(head.encode("latin-1") + body)
            status, data = _response(sock)
    except (OSError, ValueError) as exc:
        raise ServiceUnavailable(f"no service on {socket_path(home)}: {exc}") from exc
    decoded = json.loads(data) if data else None
    if status >= 400:
        detail = decoded if isinstance(decoded, dict) else {}
        raise ServiceError(
            status,
            str(detail.get("error", "CortexError")),
            str(detail.get("message", f"the service answered HTTP {status}")),
        )
    return decoded


def _response(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of the one response on `sock` (read to its end: the request
    asked the service to close). ValueError when it is not a whole HTTP response."""
    chunks = []
    while data := sock.recv(65536):
        chunks.append(data)
    head, blank, rest = b"".join(chunks).partition(b"\r\n\r\n")
    if not blank:
        raise ValueError("the answer ended before its headers did")
    status_line, *header_lines = head.split(b"\r\n")
    status = int(status_line.split()[1])
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        return status, _dechunked(rest)
    length = headers.get(b"content-length")
    if length is not None:
        if len(rest) < int(length):
            raise ValueError("the answer ended before its body did")
        return status, rest[: int(length)]
    return status, rest


def _dechunked(data: bytes) -> bytes:
    body: list[bytes] = []
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return b"".join(body)
        if len(data) < size:
            raise ValueError("the answer ended inside a chunk")
        body.append(data[:size])
        data = data[size + 2 :]


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
    try:
        (home / STARTING).unlink()
    except OSError:
        return  # gone already (contextlib.suppress would cost a hook its import)


def _spawn(home: Path) -> subprocess.Popen[bytes]:
    import subprocess  # starting a service is rare: a hook does not pay for the import

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
