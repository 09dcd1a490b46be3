"""The Anthropic client against the real SDK, with recorded-shape Messages API answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from cortex_tui.errors import ConfigError
from cortex_tui.llm.anthropic_client import DEFAULT_MODEL, AnthropicClient
from cortex_tui.llm.base import LLMClient, LLMError

from .conftest import Script, api_error, message

Build = Callable[..., tuple[AnthropicClient, Script]]


def _sent_key(script: Script) -> str:
    """The key as sent; SDK versions differ between `x-api-key` and a bearer token."""
    headers = script.headers[0]
    return headers.get("x-api-key") or headers["authorization"].removeprefix("Bearer ")


def test_sends_model_max_tokens_system_and_user(anthropic_script: Build) -> None:
    client, script = anthropic_script((200, message("[]")))
    assert client.complete("You extract memories.", "line one\nline two", 300, 5.0) == "[]"
    body = script.requests[0]
    assert body["model"] == DEFAULT_MODEL == "claude-haiku-5-5"
    assert body["max_tokens"] == 300
    assert body["system"] == "You extract memories."
    assert body["messages"] == [{"role": "user", "content": "line one\nline two"}]
    assert _sent_key(script) == "sk-ant-test"
    assert isinstance(client, LLMClient)
    assert client.name == "anthropic:claude-haiku-5-5"


@pytest.mark.parametrize("system", ["", "   \n"])
def test_empty_system_prompt_is_omitted(anthropic_script: Build, system: str) -> None:
    client, script = anthropic_script((200, message("ok")))
    client.complete(system, "hello", 50, 5.0)
    assert "system" not in script.requests[0]


def test_configured_model_is_used(anthropic_script: Build) -> None:
    client, script = anthropic_script((200, message("ok")), model="claude-sonnet-5-5")
    client.complete("s", "u", 10, 5.0)
    assert script.requests[0]["model"] == "claude-sonnet-5-5"
    assert client.name == "anthropic:claude-sonnet-5-5"


def test_only_text_blocks_are_returned(anthropic_script: Build) -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "Let me look for rules.", "signature": "EqQBCgIYAhIM"},
        {"type": "text", "text": '[{"content": "Never push to main."'},
        {"type": "text", "text": "}]"},
    ]
    client, _ = anthropic_script((200, message(content=content)))
    assert client.complete("s", "u", 500, 5.0) == '[{"content": "Never push to main."}]'


def test_refusal_is_an_error_naming_the_reason(anthropic_script: Build) -> None:
    refusal = message(
        "",
        stop_reason="refusal",
        stop_details={"type": "refusal", "category": "cyber", "explanation": "Could enable harm."},
    )
    client, script = anthropic_script((200, refusal))
    with pytest.raises(LLMError, match=r"declined.*refusal.*Could enable harm"):
        client.complete("s", "u", 100, 5.0)
    assert len(script.requests) == 1  # a refusal is not retried


def test_all_tokens_spent_without_text(anthropic_script: Build) -> None:
    thinking_only = message(
        content=[{"type": "thinking", "thinking": "...", "signature": "x"}],
        stop_reason="max_tokens",
    )
    client, _ = anthropic_script((200, thinking_only))
    with pytest.raises(LLMError, match="raise max_tokens"):
        client.complete("s", "u", 16, 5.0)


def test_rate_limit_then_success_retries_after_the_servers_delay(anthropic_script: Build) -> None:
    client, script = anthropic_script(
        (
            429,
            api_error("rate_limit_error", "Number of requests has exceeded your rate limit"),
            {"retry-after": "2"},
        ),
        (200, message("[]")),
    )
    assert client.complete("s", "u", 100, 5.0) == "[]"
    assert len(script.requests) == 2
    assert script.sleeps == [2.0]


def test_server_errors_exhaust_retries_with_exponential_backoff(anthropic_script: Build) -> None:
    client, script = anthropic_script(
        (500, api_error("api_error", "Internal server error")), retries=2
    )
    with pytest.raises(LLMError, match=r"HTTP 500.*tried 3 times"):
        client.complete("s", "u", 100, 5.0)
    assert len(script.requests) == 3
    assert script.sleeps == [0.5, 1.0]


def test_overloaded_is_retried(anthropic_script: Build) -> None:
    client, script = anthropic_script(
        (529, api_error("overloaded_error", "Overloaded")), (200, message("fine"))
    )
    assert client.complete("s", "u", 100, 5.0) == "fine"
    assert script.sleeps == [0.5]


def test_overloaded_message_when_exhausted(anthropic_script: Build) -> None:
    client, _ = anthropic_script((529, api_error("overloaded_error", "Overloaded")), retries=0)
    with pytest.raises(LLMError, match="overloaded"):
        client.complete("s", "u", 100, 5.0)


def test_timeout_becomes_llm_error(anthropic_script: Build) -> None:
    client, script = anthropic_script(httpx2.ReadTimeout("timed out"), retries=1)
    with pytest.raises(LLMError, match=r"did not answer within 1\.5 s.*llm\.timeout"):
        client.complete("s", "u", 100, 1.5)
    assert len(script.requests) == 2


def test_connection_error_becomes_llm_error(anthropic_script: Build) -> None:
    client, _ = anthropic_script(httpx2.ConnectError("connection refused"), retries=0)
    with pytest.raises(LLMError, match="cannot reach the Anthropic API"):
        client.complete("s", "u", 100, 5.0)


def test_bad_key_is_not_retried(anthropic_script: Build) -> None:
    client, script = anthropic_script((401, api_error("authentication_error", "invalid x-api-key")))
    with pytest.raises(LLMError, match=r"rejected the API key.*ANTHROPIC_API_KEY"):
        client.complete("s", "u", 100, 5.0)
    assert len(script.requests) == 1
    assert script.sleeps == []


def test_unknown_model_names_the_setting(anthropic_script: Build) -> None:
    client, _ = anthropic_script(
        (404, api_error("not_found_error", "model: claude-nope")), model="claude-nope"
    )
    with pytest.raises(LLMError, match=r"does not know model 'claude-nope'.*llm\.model"):
        client.complete("s", "u", 100, 5.0)


def test_bad_request_reports_the_api_message(anthropic_script: Build) -> None:
    client, _ = anthropic_script((400, api_error("invalid_request_error", "max_tokens: too large")))
    with pytest.raises(LLMError, match=r"HTTP 400: max_tokens: too large"):
        client.complete("s", "u", 10**9, 5.0)


def test_key_from_environment(anthropic_script: Build, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    client, script = anthropic_script((200, message("ok")), api_key=None)
    client.complete("s", "u", 10, 5.0)
    assert _sent_key(script) == "sk-ant-from-env"


def test_missing_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"ANTHROPIC_API_KEY.*llm\.anthropic_api_key"):
        AnthropicClient()
