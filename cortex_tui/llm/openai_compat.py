"""Any OpenAI-compatible chat gateway (`POST {url}/chat/completions`) over httpx.

Many teams reach models through a gateway (LiteLLM, vLLM, OpenRouter, a company proxy)
that speaks the OpenAI wire format, so this one client covers them all.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from cortex_tui.llm.base import JsonTool, LLMError, Retries, Sleep, chat_messages, json_object
from cortex_tui.llm.http_json import Endpoint, HttpChatClient


class OpenAICompatClient(HttpChatClient):
    """An `LLMClient` for an OpenAI-compatible `/chat/completions` endpoint."""

    provider = "openai"

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
        endpoint = url.rstrip("/") + "/chat/completions"
        super().__init__(
            model,
            Endpoint(
                endpoint,
                f"the gateway at {endpoint}",
                headers={"Authorization": f"Bearer {token}"} if token else {},
                hints={
                    401: "check llm.openai_token",
                    403: "check llm.openai_token and its access to llm.model",
                    404: "check llm.openai_url (usually ends in /v1) and llm.model",
                },
            ),
            Retries.of(retries, max_concurrency, sleep),
            http_client,
        )

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

    def _text_of(self, answer: Any) -> str:
        """`choices[0].message.content` as text; a refusal or empty answer is an error."""
        try:
            choice = answer["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"{self._endpoint.service} sent no choices[0].message; "
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
