"""Request bodies that are too large or not valid Unicode are refused at the door.

A body over `limits.request_bytes` gets a 413 naming the limit, and is not read further
(an import, which sends a whole export, has the CLI's import limit instead). FastAPI
would answer invalid UTF-8 with a generic decode error, and a JSON escape of a lone
surrogate (`"\\ud800"`) parses into a string nothing downstream can encode; deep in a
route that became a 500 with a traceback. So both get a 400 here, once, before any
route, and each route can trust its text. (The hooks replace such text with U+FFFD
instead, since a hook must never fail; an API client gets told.)
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cortex_tui.untrusted.text import find_lone_surrogate

_WITH_BODY = ("POST", "PUT", "PATCH", "DELETE")


class TextGuard:
    """ASGI middleware: read the body, refuse it or hand it on unchanged."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int,
        unlimited: tuple[str, ...] = (),
        unlimited_to: int = 0,
        cleaning: tuple[str, ...] = (),
    ) -> None:
        """`limit`: bytes a body may have; the paths in `unlimited` may have
        `unlimited_to` instead. The paths in `cleaning` replace lone surrogates
        themselves, as hooks do (an agent's event is never refused)."""
        self.app = app
        self.limit = limit
        self.unlimited = unlimited
        self.unlimited_to = unlimited_to
        self.cleaning = cleaning

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WITH_BODY:
            await self.app(scope, receive, send)
            return
        limit = self.unlimited_to if scope["path"] in self.unlimited else self.limit
        body, disconnected = await _whole_body(receive, limit)
        if disconnected:
            return
        if body is None:
            setting = (
                "the import limit" if scope["path"] in self.unlimited else ("limits.request_bytes")
            )
            await _refuse(
                send,
                f"request body over {limit} bytes ({setting}); send less at once or raise "
                "the limit",
                status=413,
                error="TooLargeError",
            )
            return
        problem = _problem(body, surrogates=scope["path"] not in self.cleaning)
        if problem is not None:
            await _refuse(send, problem)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _whole_body(receive: Receive, limit: int) -> tuple[bytes | None, bool]:
    """The body, or None once it passes `limit` bytes (the rest is not read)."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"", True
        part = message.get("body", b"")
        size += len(part)
        if size > limit:
            return None, False
        parts.append(part)
        if not message.get("more_body", False):
            return b"".join(parts), False


def _problem(body: bytes, *, surrogates: bool) -> str | None:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"request body is not UTF-8 (invalid byte at offset {exc.start}); send UTF-8 JSON"
    if surrogates and find_lone_surrogate(text) is not None:
        return (
            "request body holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape); "
            "send valid Unicode text"
        )
    return None


async def _refuse(
    send: Send, message: str, *, status: int = 400, error: str = "InvalidInputError"
) -> None:
    payload: dict[str, Any] = {"error": error, "message": message}
    data = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
