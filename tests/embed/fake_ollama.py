"""A deterministic stand-in for Ollama's `/api/embed`, served over real loopback sockets."""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_MODEL = "nomic-embed-text"
FAKE_DIMENSION = 8


def fake_vector(text: str) -> list[float]:
    """Deterministic, deliberately not normalised, so the client's normalising shows."""
    digest = zlib.crc32(text.encode("utf-8"))
    return [float((digest >> shift) & 0xF) + 1.0 for shift in range(0, 4 * FAKE_DIMENSION, 4)]


@dataclass
class FakeOllama:
    """What the fake server saw, and the failures it should answer before succeeding."""

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    delay: float = 0.0


class _Handler(BaseHTTPRequestHandler):
    state: FakeOllama

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.state.requests.append(body)
        time.sleep(self.state.delay)
        if self.path != "/api/embed":
            self._reply(404, b"404 page not found", "text/plain")
        elif self.state.failures:
            status = self.state.failures.pop(0)
            self._reply(status, json.dumps({"error": "busy"}).encode(), "application/json")
        elif body["model"] != FAKE_MODEL:
            error = f'model "{body["model"]}" not found, try pulling it first'
            self._reply(404, json.dumps({"error": error}).encode(), "application/json")
        else:
            payload = {"model": FAKE_MODEL, "embeddings": [fake_vector(t) for t in body["input"]]}
            self._reply(200, json.dumps(payload).encode(), "application/json")

    def _reply(self, status: int, content: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)
        except OSError:
            pass  # the client gave up waiting (timeout tests)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""


@contextmanager
def serve_fake_ollama() -> Iterator[FakeOllama]:
    state = FakeOllama()
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    # A short poll interval keeps shutdown, hence each test's teardown, fast.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
