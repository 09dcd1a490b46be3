"""Finding, starting and stopping the local service, and a small client for its socket.

Standard library only, and little of it: the hooks import this on every agent turn, and
a hook talking to a warm service must cost little more than the interpreter's own
start. The socket speaks plain HTTP/1.1 by hand (one request per connection) over
`_socket`, the C module under `socket`: `http.client` costs a hook process ~20 ms, and
`socket` itself ~5 ms of CPU for enums and selectors this client does not use. Paths are
strings (`os.path`), since `pathlib` costs a hook ~4 ms; callers may pass a `Path`.
`json` is imported by the calls that send or read JSON, not by `call_raw`, which is
all a pre hook needs.

One service owns a store (`$CORTEX_HOME/cortex.sock`). Starting is serialised by a file
lock, and a starter that finds a start already under way (a live pid in the marker
file) waits for it instead of spawning a second one.
"""

from __future__ import annotations

import _socket
import fcntl
import os
import sys
import time

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any

    StrPath = str | os.PathLike[str]

SOCKET = "cortex.sock"
START_LOCK = "service-start.lock"
STARTING = "service-starting.pid"
SERVICE_LOG = "service.log"
SERVICE_LOCK = "service.lock"
START_MARKER_TTL = 60.0
POLL = 0.05
PRE_HOOK_ROUTE = "/v1/hook/pre/raw"
"""Takes a pre hook's event as the agent sent it and answers with the hook's output."""
POST_HOOK_ROUTE = "/v1/hook/post/raw"
"""Takes a post hook's event as the agent sent it and answers once its turn is spooled."""


class ServiceUnavailable(Exception):
    """Nothing answers on the socket (not running, starting, or a stale socket file).
    `connected`: the socket took the connection, so a service is there, starting or too
    busy to answer in time."""

    def __init__(self, message: str, *, connected: bool = False) -> None:
        super().__init__(message)
        self.connected = connected


class ServiceError(Exception):
    """The service answered with an error; `kind` names the engine's error class."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def socket_path(home: StrPath) -> str:
    return os.path.join(home, SOCKET)


def daemon_enabled() -> bool:
    """False when `CORTEX_DAEMON` says 0/false/no/off: the caller runs the engine itself."""
    return os.environ.get("CORTEX_DAEMON", "1").strip().lower() not in ("0", "false", "no", "off")


def call(
    home: StrPath, method: str, path: str, payload: Any = None, *, timeout: float = 5.0
) -> Any:
    """One JSON request to the service; the decoded JSON answer (None for an empty body).
    `timeout` bounds each wait on the socket (connect, send, each read)."""
    import json

    body = json.dumps(payload).encode() if payload is not None else None
    status, data = call_raw(home, method, path, body, timeout=timeout)
    if status >= 400:
        raise answer_error(status, data)
    return json.loads(data) if data else None


def answer_error(status: int, data: bytes) -> ServiceError:
    """The error an answer of `status` carries (`{"error": ..., "message": ...}`)."""
    import json

    try:
        decoded = json.loads(data) if data else None
    except ValueError:
        decoded = None
    detail = decoded if isinstance(decoded, dict) else {}
    return ServiceError(
        status,
        str(detail.get("error", "CortexError")),
        str(detail.get("message", f"the service answered HTTP {status}")),
    )


def call_raw(
    home: StrPath,
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    timeout: float = 5.0,
    content_type: str = "application/json",
) -> tuple[int, bytes]:
    """One request with `body` as it is; the answer's status and body, whatever they
    are. `timeout` bounds each wait on the socket (connect, send, each read)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: cortex\r\nConnection: close\r\n"
    if body is not None:
        head += f"Content-Type: {content_type}\r\n"
    head += f"Content-Length: {len(body or b'')}\r\n\r\n"
    where = socket_path(home)
    connected = False
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(where)
            connected = True
            sock.sendall(head.encode("latin-1") + (body or b""))
            return _response(sock)
        finally:
            sock.close()
    except (OSError, ValueError) as exc:
        problem = "no answer from the service" if connected else "no service"
        raise ServiceUnavailable(f"{problem} on {where}: {exc}", connected=connected) from exc


def _response(sock: _socket.socket) -> tuple[int, bytes]:
    """The status and body of the one response on `sock`, returned as soon as its body
    is whole: the service closes the connection only after the request's background
    tasks (a pre hook's read counts, several ms), which no caller waits for. ValueError
    when it is not a whole HTTP response."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _more(sock, "the answer ended before its headers did")
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.split(b"\r\n")
    status = int(status_line.split()[1])
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        return status, _dechunked(rest, sock)
    length = headers.get(b"content-length")
    if length is None:
        return status, rest + _rest_of(sock)
    size, parts, have = int(length), [rest], len(rest)
    while have < size:  # parts joined once: a large answer is not copied per read
        parts.append(_more(sock, "the answer ended before its body did"))
        have += len(parts[-1])
    return status, b"".join(parts)[:size]


def _rest_of(sock: _socket.socket) -> bytes:
    chunks = []
    while data := sock.recv(65536):
        chunks.append(data)
    return b"".join(chunks)


def _dechunked(data: bytes, sock: _socket.socket) -> bytes:
    """A chunked body, read from `sock` up to its last (empty) chunk."""
    body: list[bytes] = []
    while True:
        while b"\r\n" not in data:
            data += _more(sock, "the answer ended inside a chunk")
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return b"".join(body)
        while len(data) < size + 2:
            data += _more(sock, "the answer ended inside a chunk")
        body.append(data[:size])
        data = data[size + 2 :]


def _more(sock: _socket.socket, problem: str) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise ValueError(problem)
    return chunk


def status(home: StrPath, timeout: float = 1.0) -> dict[str, Any] | None:
    """The running service's status, or None when nothing answers."""
    try:
        answer = call(home, "GET", "/v1/status", timeout=timeout)
    except (ServiceUnavailable, ServiceError):
        return None
    return answer if isinstance(answer, dict) else None


def start(home: StrPath, *, wait: float) -> bool:
    """Start the service in the background unless it runs; True once it answers.

    Returns False when it did not answer within `wait` seconds (it may still be coming
    up: a hook with a tight budget gives up on this turn, the service keeps starting).
    """
    deadline = time.monotonic() + wait
    if _answers_by(home, deadline):
        return True
    private_dir(home)
    started, process = _spawn_unless_starting(home, deadline)
    if not started:
        return False
    while time.monotonic() < deadline:
        if _answers_by(home, deadline):
            return True
        if process is not None and process.poll() is not None:
            return False  # it refused to start (e.g. the store is locked): say so now
        time.sleep(POLL)
    return False


def _answers_by(home: StrPath, deadline: float) -> bool:
    """Whether the service answers, asked with no more than a second and never past
    `deadline` (a socket bound by a service still starting takes the connection and
    answers only once it serves)."""
    return status(home, timeout=max(0.05, min(1.0, deadline - time.monotonic()))) is not None


def _spawn_unless_starting(
    home: StrPath, deadline: float
) -> tuple[bool, subprocess.Popen[bytes] | None]:
    """(False, None) when the start lock stayed busy past the deadline; else True and
    the process spawned here (None when another caller's start is under way)."""
    with open_private(os.path.join(home, START_LOCK), "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False, None
                time.sleep(POLL)
        try:
            if _answers_by(home, deadline) or start_under_way(home):
                return True, None
            process = _spawn(home)
            with open_private(os.path.join(home, STARTING), "w") as marker:
                marker.write(f"{process.pid} {time.time()}")
            return True, process
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def start_under_way(home: StrPath) -> bool:
    """Whether a start is under way: a service spawned in the last minute, alive, not
    answering yet."""
    try:
        with open(os.path.join(home, STARTING), encoding="utf-8") as marker:
            pid_text, started = marker.read().split()
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


def start_refusal(home: StrPath) -> str | None:
    """Why the service last refused to start (a damaged or locked store, say): its log's
    last error line, when the log was written in the last minute and no service served
    after it."""
    log = os.path.join(home, "logs", SERVICE_LOG)
    try:
        if time.time() - os.stat(log).st_mtime > START_MARKER_TTL:
            return None
        with open(log, "rb") as handle:
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


def clear_start_marker(home: StrPath) -> None:
    """Called by the service once it answers (or fails): later starters may spawn again."""
    try:
        os.unlink(os.path.join(home, STARTING))
    except OSError:
        return  # gone already (contextlib.suppress would cost a hook its import)


def _spawn(home: StrPath) -> subprocess.Popen[bytes]:
    import subprocess  # starting a service is rare: a hook does not pay for the import

    logs = os.path.join(home, "logs")
    private_dir(logs)
    with open_private(os.path.join(logs, SERVICE_LOG), "ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "cortex_tui", "serve", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # the agent's process group may be killed; we live on
            close_fds=True,
            env={**os.environ, "CORTEX_HOME": str(home)},
        )


def stop(home: StrPath, *, wait: float = 30.0) -> bool:
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


def _exited(home: StrPath) -> bool:
    """The service holds `service.lock` until its store is closed: free lock, gone service."""
    try:
        with open_private(os.path.join(home, SERVICE_LOCK), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return False
    return True
