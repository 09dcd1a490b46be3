"""A stand-in for the Anthropic Messages API on 127.0.0.1, for real agents to talk to.

It records every request an agent sends (the model's view of the turn: system prompt,
messages, the context our hooks injected, the tools offered) and answers from a script:
plain text, or a `tool_use` of a named tool. Answers are streamed as server-sent events
when the request asks for it, as Claude Code does, and returned whole otherwise.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Text:
    """The model answers with this text and ends its turn."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The model calls `name` with `arguments`; the agent runs it and asks again."""

    name: str
    arguments: JsonObject


Reply = Text | ToolCall
Step = Reply | Callable[["Request"], Reply]
"""A scripted answer, or one made from the request (a tool's earlier result, say)."""


@dataclass
class Request:
    path: str
    body: JsonObject

    @property
    def text(self) -> str:
        """Everything the model is shown, as one string: system prompt and messages."""
        return json.dumps([self.body.get("system"), self.body.get("messages")], ensure_ascii=False)

    @property
    def tools(self) -> list[str]:
        return [tool.get("name", "") for tool in self.body.get("tools") or []]

    def tool_results(self) -> list[JsonObject]:
        """The `tool_result` blocks of the last user message (what the agent's tools
        said; a reminder of the agent's own may follow it)."""
        users = [m for m in self.body.get("messages") or [] if m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        if not isinstance(content, list):
            return []
        return [block for block in content if block.get("type") == "tool_result"]


@dataclass
class ModelStandIn:
    """Serves until `close`; `script` is consumed one step per model request, and a
    request past its end is answered with `Text("Done.")`."""

    script: list[Step] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def answer(self, path: str, body: JsonObject) -> Reply:
        request = Request(path, body)
        with self._lock:
            self.requests.append(request)
            step = self.script.pop(0) if self.script else Text("Done.")
        if not callable(step):
            return step
        try:
            return step(request)
        except Exception as exc:
            self.failures.append(f"{type(exc).__name__}: {exc}")
            raise

    def check(self) -> None:
        """Fail when a scripted step could not make its reply (the agent would only see a
        failed request, and retry it)."""
        assert not self.failures, f"the model's script failed: {self.failures}"

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(model: ModelStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(size) or b"{}")
            except ValueError:
                body = {}
            if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                self._send_json({"input_tokens": 100} if "count_tokens" in self.path else {})
                return
            reply = model.answer(self.path, body)
            message_id = f"msg_standin_{model.next_id()}"
            blocks, stop_reason = _content(reply, message_id)
            if body.get("stream"):
                self._stream(message_id, str(body.get("model", "")), blocks, stop_reason)
            else:
                self._send_json(_message(message_id, body, blocks, stop_reason))

        def do_GET(self) -> None:
            self._send_json({}, status=404)

        def _send_json(self, payload: JsonObject, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(
            self, message_id: str, model_name: str, blocks: list[JsonObject], stop_reason: str
        ) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, data in _events(message_id, model_name, blocks, stop_reason):
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *_args: object) -> None:
            return

    return Handler


def _content(reply: Reply, message_id: str) -> tuple[list[JsonObject], str]:
    if isinstance(reply, ToolCall):
        block = {
            "type": "tool_use",
            "id": f"toolu_{message_id}",
            "name": reply.name,
            "input": reply.arguments,
        }
        return [block], "tool_use"
    return [{"type": "text", "text": reply.text}], "end_turn"


def _message(
    message_id: str, body: JsonObject, blocks: list[JsonObject], stop_reason: str
) -> JsonObject:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }


def _events(
    message_id: str, model_name: str, blocks: list[JsonObject], stop_reason: str
) -> Iterator[tuple[str, JsonObject]]:
    """The server-sent events of one streamed message, as the Messages API sends them."""
    start = {"id": message_id, "type": "message", "role": "assistant", "model": model_name}
    start |= {"content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": 100, "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            opening: JsonObject = {"type": "text", "text": ""}
            delta: JsonObject = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 10},
        },
    )
    yield "message_stop", {"type": "message_stop"}
