"""Build the configured LLM client, importing only its backend.

The default is no LLM at all (offline heuristics), and hooks import the engine on every
turn, so neither `anthropic` nor `httpx` may load unless the configured provider needs it.
"""

from __future__ import annotations

from typing import assert_never

from cortex_tui.config import LLMConfig
from cortex_tui.errors import ConfigError
from cortex_tui.llm.base import LLMClient


def make_llm(config: LLMConfig) -> LLMClient | None:
    """The client `config.provider` names, or None for "none" (offline).

    Raises `ConfigError` when the provider lacks a setting it cannot work without.
    """
    match config.provider:
        case "none":
            return None
        case "anthropic":
            from cortex_tui.llm.anthropic_client import AnthropicClient

            return AnthropicClient(
                api_key=config.anthropic_api_key,
                model=config.model,
                retries=config.retries,
                max_concurrency=config.max_concurrency,
            )
        case "openai":
            if not config.openai_url or not config.model:
                raise ConfigError(
                    "llm.provider is 'openai' but llm.openai_url or llm.model is not set; "
                    "set both (e.g. CORTEX_LLM__OPENAI_URL=https://gateway/v1, "
                    "CORTEX_LLM__MODEL=<model>)"
                )
            from cortex_tui.llm.openai_compat import OpenAICompatClient

            return OpenAICompatClient(
                config.openai_url,
                config.model,
                token=config.openai_token,
                retries=config.retries,
                max_concurrency=config.max_concurrency,
            )
        case "ollama":
            from cortex_tui.llm.ollama_chat import DEFAULT_MODEL, OllamaChatClient

            return OllamaChatClient(
                config.ollama_url,
                config.model or DEFAULT_MODEL,
                retries=config.retries,
                max_concurrency=config.max_concurrency,
            )
        case _:
            assert_never(config.provider)
