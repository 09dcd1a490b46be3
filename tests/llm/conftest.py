"""Mock HTTP servers for the LLM clients: the real SDKs and httpx, a scripted transport.

Each fixture records every request and answers from a queue of responses (or exceptions
to raise), so tests read like "429, then 200" and assert on what was actually sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx2
import pytest

from cortex_tui.llm.anthropic_client import AnthropicClient

Reply = tuple[int, Any] | tuple[int, Any, dict[str, str]] | Exception


@dataclass
class Script:
    """A queue of replies; the last one repeats once the queue runs dry."""

    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)

    def next_reply(self, body: bytes, headers: dict[str, str]) -> Reply:
        self.requests.append(json.loads(body))
        self.headers.append(headers)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def message(
    text: str | None = None, *, stop_reason: str = "end_turn", **extra: Any
) -> dict[str, Any]:
    """A Messages API response body as the API sends it."""
    content = [] if text is None else [{"type": "text", "text": text}]
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-5-5",
        "content": extra.pop("content", content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 412, "output_tokens": 96},
        **extra,
    }


def api_error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_011"}


@pytest.fixture
def anthropic_script(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., tuple[AnthropicClient, Script]]:
    """Build an `AnthropicClient` on the real SDK whose HTTP goes to a `Script`."""
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)

    def build(*replies: Reply, retries: int = 3, **kwargs: Any) -> tuple[AnthropicClient, Script]:
        script = Script(list(replies))

        def handler(request: httpx2.Request) -> httpx2.Response:
            reply = script.next_reply(request.content, dict(request.headers))
            if isinstance(reply, Exception):
                raise reply
            status, body, *headers = reply
            return httpx2.Response(status, json=body, headers=headers[0] if headers else None)

        client = AnthropicClient(
            api_key=kwargs.pop("api_key", "sk-ant-test"),
            retries=retries,
            http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
            sleep=script.sleeps.append,
            **kwargs,
        )
        return client, script

    return build


@pytest.fixture
def http_script() -> Callable[..., tuple[httpx.Client, Script]]:
    """An `httpx.Client` whose requests go to a `Script` (for the OpenAI and Ollama clients)."""

    def build(*replies: Reply) -> tuple[httpx.Client, Script]:
        script = Script(list(replies))

        def handler(request: httpx.Request) -> httpx.Response:
            reply = script.next_reply(request.content, dict(request.headers))
            if isinstance(reply, Exception):
                raise reply
            status, body, *headers = reply
            if isinstance(body, str):
                return httpx.Response(status, text=body, headers=headers[0] if headers else None)
            return httpx.Response(status, json=body, headers=headers[0] if headers else None)

        return httpx.Client(transport=httpx.MockTransport(handler)), script

    return build
