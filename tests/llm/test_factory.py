"""`make_llm`: the provider switch, its required settings, and lazy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cortex_tui.config import LLMConfig
from cortex_tui.errors import ConfigError
from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.llm.base import process_semaphore
from cortex_tui.llm.factory import make_llm
from cortex_tui.llm.ollama_chat import OllamaChatClient
from cortex_tui.llm.openai_compat import OpenAICompatClient


def test_none_is_offline() -> None:
    assert make_llm(LLMConfig()) is None


def test_anthropic_with_configured_key() -> None:
    client = make_llm(LLMConfig(provider="anthropic", anthropic_api_key="sk-ant-x"))
    assert isinstance(client, AnthropicClient)
    assert client.name == "anthropic:claude-haiku-5-5"


def test_anthropic_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        make_llm(LLMConfig(provider="anthropic"))


def test_openai_needs_url_and_model() -> None:
    with pytest.raises(ConfigError, match=r"llm\.openai_url or llm\.model"):
        make_llm(LLMConfig(provider="openai", openai_url="http://gw/v1"))
    client = make_llm(LLMConfig(provider="openai", openai_url="http://gw/v1", model="m"))
    assert isinstance(client, OpenAICompatClient)
    assert client.name == "openai:m"


def test_ollama_default_model() -> None:
    client = make_llm(LLMConfig(provider="ollama"))
    assert isinstance(client, OllamaChatClient)
    assert client.name == "ollama:llama3.2"


def test_semaphore_is_shared_per_limit() -> None:
    assert process_semaphore(7) is process_semaphore(7)
    assert process_semaphore(7) is not process_semaphore(8)
    with pytest.raises(ValueError, match="at least 1"):
        process_semaphore(0)


def test_factory_import_loads_no_http_library() -> None:
    code = (
        "import sys, cortex_tui.llm.factory, cortex_tui.capture.heuristic, "
        "cortex_tui.agent_turn.agents.claude_code.transcript\n"
        "print(sorted(m for m in ('anthropic', 'httpx', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
