"""Any OpenAI-compatible chat gateway (`POST {url}/chat/completions`) over httpx.

Many teams reach models through a gateway (LiteLLM, vLLM, OpenRouter, a company proxy)
that speaks the OpenAI wire format, so this one client covers them all. The JSON-POST
helper here is shared with the Ollama client: both need the same retry classification
(429, 5xx, timeouts and connection errors are transient; other statuses are final).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

from cortex_tui.llm.base import (
    JsonTool,
    LLMError,
    RetryableLLMError,
    Sleep,
    call_with_retries,
    chat_messages,
    json_object,
    parse_retry_after,
    process_semaphore,
)


def post_json(
    http: httpx.Client,
    url: str,
    payload: Mapping[str, Any],
    *,
    timeout: float,
    service: str,
    headers: Mapping[str, str] | None = None,
    hints: Mapping[int, str] | None = None,
) -> Any:
    """POST `payload` and return the decoded JSON answer.

    Raises `RetryableLLMError` for transient failures and `LLMError` otherwise; `hints`
    maps a status code to the fix worth telling the user (e.g. 401 → which token to set).
    """
    try:
        response = http.post(url, json=dict(payload), headers=dict(headers or {}), timeout=timeout)
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
        hint = (hints or {}).get(status)
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


class OpenAICompatClient:
    """An `LLMClient` for an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(
        self,
        url: str,
        model: str,
        *,
        token: str | None = None,
        retries: int = 3,
        max_concurrency: int = 4,
        http_client: httpx.Client | None = None,
        sleep: Sleep = time.sleep,
    ) -> None:
        """`url` is the API base, usually ending in `/v1`; `token` is sent as a bearer."""
        self._endpoint = url.rstrip("/") + "/chat/completions"
        self._model = model
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._retries = retries
        self._semaphore = process_semaphore(max_concurrency)
        self._sleep = sleep
        self._http = http_client or httpx.Client()

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        messages = chat_messages(system, user)
        payload = {"model": self._model, "messages": messages, "max_tokens": max_tokens}
        return self._text_of(self._post(payload, timeout))

    def complete_json(
        self, system: str, user: str, tool: JsonTool, max_tokens: int, timeout: float
    ) -> dict[str, Any]:
        """The answer under a strict `json_schema` response format (structured outputs);
        a gateway that ignores the format still has to answer with the object."""
        payload = {
            "model": self._model,
            "messages": chat_messages(system, user),
            "max_tokens": max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": tool.name,
                    "description": tool.description,
                    "schema": dict(tool.schema),
                    "strict": True,
                },
            },
        }
        return json_object(self._text_of(self._post(payload, timeout)), self._model)

    def _post(self, payload: dict[str, Any], timeout: float) -> Any:
        return call_with_retries(
            lambda: post_json(
                self._http,
                self._endpoint,
                payload,
                timeout=timeout,
                service=f"the gateway at {self._endpoint}",
                headers=self._headers,
                hints={
                    401: "check llm.openai_token",
                    403: "check llm.openai_token and its access to llm.model",
                    404: "check llm.openai_url (usually ends in /v1) and llm.model",
                },
            ),
            retries=self._retries,
            semaphore=self._semaphore,
            sleep=self._sleep,
        )

    def _text_of(self, answer: Any) -> str:
        """`choices[0].message.content` as text; a refusal or empty answer is an error."""
        try:
            choice = answer["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"the gateway at {self._endpoint} sent no choices[0].message; "
                "is llm.openai_url an OpenAI-compatible API?"
            ) from None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # some gateways return content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if isinstance(content, str) and content.strip():
            return content
        if isinstance(message, dict) and message.get("refusal"):
            raise LLMError(f"{self._model} declined the request: {message['refusal']}")
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        raise LLMError(f"{self._model} answered without text (finish_reason {reason!r})")
