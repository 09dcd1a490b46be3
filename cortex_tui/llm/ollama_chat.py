"""A chat model served by a local Ollama (`POST {url}/api/chat`, no streaming).

For users who want LLM-quality extraction without sending conversations off the machine.
Ollama can be down, still loading, or lack the model; each case gets its own fix.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from cortex_tui.llm.base import JsonTool, LLMError, Retries, Sleep, chat_messages, json_object
from cortex_tui.llm.http_json import Endpoint, HttpChatClient

DEFAULT_MODEL = "llama3.2"


class OllamaChatClient(HttpChatClient):
    """An `LLMClient` for Ollama's native chat API."""

    provider = "ollama"

    def __init__(
        self,
        url: str = "http://127.0.0.1:11434",
        model: str = DEFAULT_MODEL,
        *,
        retries: int = 3,
        max_concurrency: int = 4,
        http_client: httpx.Client | None = None,
        sleep: Sleep = time.sleep,
    ) -> None:
        self._url = url.rstrip("/")
        super().__init__(
            model,
            Endpoint(
                f"{self._url}/api/chat",
                f"Ollama at {self._url}",
                hints={404: f"run `ollama pull {model}`, or set llm.model to a pulled model"},
            ),
            Retries.of(retries, max_concurrency, sleep),
            http_client,
        )

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        return self._text_of(self._chat(system, user, max_tokens, timeout))

    def complete_json(
        self, system: str, user: str, tool: JsonTool, max_tokens: int, timeout: float
    ) -> dict[str, Any]:
        """The answer under Ollama's structured outputs (`format` set to the schema)."""
        answer = self._chat(system, user, max_tokens, timeout, format=dict(tool.schema))
        return json_object(self._text_of(answer), f"Ollama model {self._model!r}")

    def _chat(self, system: str, user: str, max_tokens: int, timeout: float, **extra: Any) -> Any:
        payload = {
            "model": self._model,
            "messages": chat_messages(system, user),
            "stream": False,
            "options": {"num_predict": max_tokens},
            **extra,
        }
        return self._post(payload, timeout)

    def _text_of(self, answer: Any) -> str:
        message = answer.get("message") if isinstance(answer, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise LLMError(f"Ollama at {self._url} sent no message.content; is it a recent Ollama?")
        if not content.strip():
            raise LLMError(f"Ollama model {self._model!r} answered with empty text")
        return content
