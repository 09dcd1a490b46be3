"""Claude through the official `anthropic` SDK.

Retries are ours, not the SDK's (`max_retries=0`): one loop with an injectable sleep for
every backend keeps the behaviour identical across providers and makes tests instant.
The SDK's errors are mapped to one-line `LLMError`s that name the fix. Thinking is left
at the model's default because not every model accepts turning it off; only text blocks
are read, so thinking blocks in the answer are ignored.

Note: the SDK talks through `httpx2` (a fork of httpx), so an injected client must be an
`httpx2.Client`, e.g. `httpx2.Client(transport=httpx2.MockTransport(handler))` in tests.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from cortex_tui.errors import ConfigError
from cortex_tui.llm.base import (
    JsonTool,
    LLMError,
    Retries,
    RetryableLLMError,
    Sleep,
    json_object,
    parse_retry_after,
)

if TYPE_CHECKING:
    import anthropic
    import httpx2

DEFAULT_MODEL = "claude-haiku-5-5"


class AnthropicClient:
    """An `LLMClient` for the Claude Messages API."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str | None = None,
        retries: int = 3,
        max_concurrency: int = 4,
        http_client: httpx2.Client | None = None,
        sleep: Sleep = time.sleep,
    ) -> None:
        """Build the SDK client; no request is made until `complete`.

        The key comes from `api_key` (`llm.anthropic_api_key`), else `ANTHROPIC_API_KEY`.
        """
        import anthropic

        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigError(
                "llm.provider is 'anthropic' but no API key is set: export ANTHROPIC_API_KEY "
                "or set llm.anthropic_api_key (or set llm.provider = 'none' to stay offline)"
            )
        self._model = model or DEFAULT_MODEL
        self._retries = Retries.of(retries, max_concurrency, sleep)
        self._sdk = anthropic.Anthropic(api_key=key, max_retries=0, http_client=http_client)

    @property
    def name(self) -> str:
        return f"anthropic:{self._model}"

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        return self._retries.run(lambda: self._complete_once(system, user, max_tokens, timeout))

    def complete_json(
        self, system: str, user: str, tool: JsonTool, max_tokens: int, timeout: float
    ) -> dict[str, Any]:
        """The answer as the input of `tool`, which the model is made to call
        (`tool_choice`), so the API holds it to the schema."""
        return self._retries.run(
            lambda: self._tool_input(
                self._create(
                    system,
                    user,
                    max_tokens,
                    timeout,
                    tools=[
                        {
                            "name": tool.name,
                            "description": tool.description,
                            "input_schema": dict(tool.schema),
                        }
                    ],
                    tool_choice={
                        "type": "tool",
                        "name": tool.name,
                        "disable_parallel_tool_use": True,
                    },
                ),
                tool,
                max_tokens,
            ),
        )

    def _complete_once(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        return self._text_of(self._create(system, user, max_tokens, timeout), max_tokens)

    def _create(
        self, system: str, user: str, max_tokens: int, timeout: float, **tools: Any
    ) -> anthropic.types.Message:
        import anthropic

        try:
            message: anthropic.types.Message = self._sdk.messages.create(
                model=self._model,
                max_tokens=max_tokens,
                # The API rejects an empty system text block, so an empty prompt is omitted.
                system=system if system.strip() else anthropic.omit,
                messages=[{"role": "user", "content": user}],
                timeout=timeout,
                **tools,
            )
        except anthropic.APIError as exc:
            raise self._translate(exc, timeout) from None
        return message

    def _translate(self, exc: anthropic.APIError, timeout: float) -> Exception:
        """The `LLMError` (final) or `RetryableLLMError` (transient) for an SDK error."""
        import anthropic

        model = self._model
        if isinstance(exc, anthropic.APITimeoutError):
            return RetryableLLMError(
                f"Claude ({model}) did not answer within {timeout:g} s "
                "(raise llm.timeout, or check the network)"
            )
        if isinstance(exc, anthropic.APIConnectionError):
            return RetryableLLMError(
                f"cannot reach the Anthropic API ({exc.message}); check the network or proxy"
            )
        if not isinstance(exc, anthropic.APIStatusError):
            return LLMError(f"unexpected answer from the Anthropic API: {exc.message}")
        status = exc.status_code
        detail = exc.api_message or exc.message
        if isinstance(exc, anthropic.AuthenticationError):
            return LLMError(
                "the Anthropic API rejected the API key (HTTP 401): check ANTHROPIC_API_KEY "
                "or llm.anthropic_api_key"
            )
        if isinstance(exc, anthropic.PermissionDeniedError):
            return LLMError(
                f"the Anthropic API key may not use {model!r} (HTTP 403: {detail}); "
                "check the key's workspace and permissions"
            )
        if isinstance(exc, anthropic.NotFoundError):
            return LLMError(
                f"the Anthropic API does not know model {model!r} (HTTP 404); set llm.model "
                f"to a current model id such as {DEFAULT_MODEL!r}"
            )
        if isinstance(exc, anthropic.RateLimitError):
            return RetryableLLMError(
                "the Anthropic API rate limit was hit (HTTP 429); lower llm.max_concurrency "
                "or wait",
                retry_after=parse_retry_after(exc.response.headers.get("retry-after")),
            )
        if status == 529 or isinstance(exc, anthropic.OverloadedError):
            return RetryableLLMError("the Anthropic API is overloaded (HTTP 529); try later")
        if status >= 500 or status == 408:
            return RetryableLLMError(f"the Anthropic API failed (HTTP {status}: {detail})")
        return LLMError(f"the Anthropic API rejected the request (HTTP {status}: {detail})")

    def _tool_input(
        self, message: anthropic.types.Message, tool: JsonTool, max_tokens: int
    ) -> dict[str, Any]:
        """The input of the `tool` call; a refusal, or an answer without the call (and
        without a JSON object in its text instead), is an `LLMError`."""
        self._check_refusal(message)
        for block in message.content:
            if block.type == "tool_use" and block.name == tool.name:
                return dict(block.input)
        return json_object(self._text_of(message, max_tokens), f"Claude ({self._model})")

    def _check_refusal(self, message: anthropic.types.Message) -> None:
        if message.stop_reason == "refusal":
            details = message.stop_details
            why = f": {details.explanation}" if details and details.explanation else ""
            raise LLMError(
                f"Claude ({self._model}) declined the request (stop_reason 'refusal'{why}); "
                "this text is left to the offline heuristics"
            )

    def _text_of(self, message: anthropic.types.Message, max_tokens: int) -> str:
        """Joined text blocks; a refusal or an answer without text is an `LLMError`."""
        self._check_refusal(message)
        text = "".join(block.text for block in message.content if block.type == "text")
        if text.strip():
            return text
        if message.stop_reason == "max_tokens":
            raise LLMError(
                f"Claude ({self._model}) used all {max_tokens} output tokens before writing "
                "an answer (thinking counts toward the limit); raise max_tokens"
            )
        raise LLMError(f"Claude ({self._model}) answered without any text")
