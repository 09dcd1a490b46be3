"""What the two clients that speak JSON over HTTP share (Ollama's native chat API and
any OpenAI-compatible gateway): one model behind one endpoint, posted to through httpx
with the same retry classification (429, 5xx, timeouts and connection errors are
transient; other statuses are final).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

from cortex_tui.llm.base import LLMError, Retries, RetryableLLMError, parse_retry_after


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a client posts, and how its failures read: `service` names it in every
    error, `hints` maps a status code to the fix worth telling (401 → which token to set)."""

    url: str
    service: str
    headers: Mapping[str, str] = field(default_factory=dict)
    hints: Mapping[int, str] = field(default_factory=dict)


class HttpChatClient:
    """An `LLMClient` base: `provider` names the backend in `name`; `_post` sends one
    request to the endpoint with the client's retries and concurrency limit."""

    provider: ClassVar[str]

    def __init__(
        self, model: str, endpoint: Endpoint, retries: Retries, http_client: httpx.Client | None
    ) -> None:
        self._model = model
        self._endpoint = endpoint
        self._retries = retries
        self._http = http_client or httpx.Client()

    @property
    def name(self) -> str:
        return f"{self.provider}:{self._model}"

    def _post(self, payload: Mapping[str, Any], timeout: float) -> Any:
        return self._retries.run(lambda: post_json(self._http, self._endpoint, payload, timeout))


def post_json(
    http: httpx.Client, endpoint: Endpoint, payload: Mapping[str, Any], timeout: float
) -> Any:
    """POST `payload` and return the decoded JSON answer.

    Raises `RetryableLLMError` for transient failures and `LLMError` otherwise, with the
    endpoint's hint for the status when it has one.
    """
    service = endpoint.service
    try:
        response = http.post(
            endpoint.url, json=dict(payload), headers=dict(endpoint.headers), timeout=timeout
        )
    except httpx.TimeoutException:
        raise RetryableLLMError(
            f"{service} did not answer within {timeout:g} s (raise llm.timeout)"
        ) from None
    except httpx.TransportError as exc:
        raise RetryableLLMError(f"cannot reach {service} ({exc}); is it running?") from None
    status = response.status_code
    if status != 200:
        message = f"{service} answered HTTP {status}: {_error_detail(response.text)}"
        if status in (408, 429) or status >= 500:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            raise RetryableLLMError(message, retry_after=retry_after)
        hint = endpoint.hints.get(status)
        raise LLMError(f"{message}; {hint}" if hint else message)
    try:
        return response.json()
    except ValueError:
        raise LLMError(
            f"{service} answered with something that is not JSON: {response.text[:120]!r}"
        ) from None


def _error_detail(body: str) -> str:
    """`{"error": {"message": ...}}` (OpenAI) or `{"error": "..."}` (Ollama), else raw."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        return body.strip()[:200] or "no details"
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return body.strip()[:200] or "no details"
