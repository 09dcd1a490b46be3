"""The OpenAI-compatible and Ollama clients over httpx, against a scripted transport."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from cortex_tui.llm.base import LLMClient, LLMError
from cortex_tui.llm.ollama_chat import OllamaChatClient
from cortex_tui.llm.openai_compat import OpenAICompatClient
from cortex_tui.write.judge.llm_judge import JUDGE_TOOL, LLMRuling, judge_with_llm

from .conftest import Script

Build = Callable[..., tuple[httpx.Client, Script]]


def chat_completion(content: Any, finish_reason: str = "stop", **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9x",
        "object": "chat.completion",
        "model": "gpt-5-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 5, "total_tokens": 45},
    }


def openai(http: httpx.Client, script: Script, **kwargs: Any) -> OpenAICompatClient:
    return OpenAICompatClient(
        "https://gateway.example/v1/",
        "gpt-5-mini",
        token=kwargs.pop("token", "gw-secret"),
        http_client=http,
        sleep=script.sleeps.append,
        **kwargs,
    )


def test_openai_request_shape(http_script: Build) -> None:
    http, script = http_script((200, chat_completion("[]")))
    client = openai(http, script)
    assert isinstance(client, LLMClient)
    assert client.name == "openai:gpt-5-mini"
    assert client.complete("Extract.", "a\nb", 256, 5.0) == "[]"
    assert script.requests[0] == {
        "model": "gpt-5-mini",
        "messages": [
            {"role": "system", "content": "Extract."},
            {"role": "user", "content": "a\nb"},
        ],
        "max_tokens": 256,
    }
    assert script.headers[0]["authorization"] == "Bearer gw-secret"


def test_openai_url_and_no_token(http_script: Build) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        assert "authorization" not in request.headers
        return httpx.Response(200, json=chat_completion("ok"))

    client = OpenAICompatClient(
        "http://localhost:4000/v1",
        "local",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    assert client.complete("", "u", 5, 5.0) == "ok"
    assert seen == ["http://localhost:4000/v1/chat/completions"]


def test_openai_empty_system_is_left_out(http_script: Build) -> None:
    http, script = http_script((200, chat_completion("ok")))
    openai(http, script).complete("", "hello", 5, 5.0)
    assert script.requests[0]["messages"] == [{"role": "user", "content": "hello"}]


def test_openai_content_parts_are_joined(http_script: Build) -> None:
    parts = [{"type": "text", "text": "[{"}, {"type": "text", "text": "}]"}]
    http, script = http_script((200, chat_completion(parts)))
    assert openai(http, script).complete("s", "u", 5, 5.0) == "[{}]"


def test_openai_refusal(http_script: Build) -> None:
    http, script = http_script((200, chat_completion(None, refusal="I can't help with that.")))
    with pytest.raises(LLMError, match="declined the request: I can't help"):
        openai(http, script).complete("s", "u", 5, 5.0)


def test_openai_empty_answer(http_script: Build) -> None:
    http, script = http_script((200, chat_completion("", finish_reason="length")))
    with pytest.raises(LLMError, match=r"without text.*'length'"):
        openai(http, script).complete("s", "u", 5, 5.0)


def test_openai_not_an_openai_api(http_script: Build) -> None:
    http, script = http_script((200, {"result": "hello"}))
    with pytest.raises(LLMError, match=r"no choices\[0\]\.message"):
        openai(http, script).complete("s", "u", 5, 5.0)


def test_openai_429_then_success(http_script: Build) -> None:
    http, script = http_script(
        (429, {"error": {"message": "Rate limit reached", "type": "rate_limit"}}),
        (200, chat_completion("ok")),
    )
    assert openai(http, script).complete("s", "u", 5, 5.0) == "ok"
    assert script.sleeps == [0.5]


def test_openai_5xx_exhausted(http_script: Build) -> None:
    http, script = http_script((502, "<html>Bad Gateway</html>"))
    with pytest.raises(LLMError, match=r"HTTP 502: <html>Bad Gateway</html>.*tried 4 times"):
        openai(http, script).complete("s", "u", 5, 5.0)
    assert script.sleeps == [0.5, 1.0, 2.0]


def test_openai_401_names_the_token_setting(http_script: Build) -> None:
    http, script = http_script((401, {"error": {"message": "Invalid API key"}}))
    with pytest.raises(LLMError, match=r"HTTP 401: Invalid API key; check llm\.openai_token"):
        openai(http, script).complete("s", "u", 5, 5.0)
    assert len(script.requests) == 1


def test_openai_timeout(http_script: Build) -> None:
    http, script = http_script(httpx.ReadTimeout("read timed out"))
    with pytest.raises(LLMError, match=r"did not answer within 2 s.*tried 2 times"):
        openai(http, script, retries=1).complete("s", "u", 5, 2.0)


def test_openai_not_json(http_script: Build) -> None:
    http, script = http_script((200, "upstream says hi"))
    with pytest.raises(LLMError, match="not JSON"):
        openai(http, script).complete("s", "u", 5, 5.0)


def ollama(http: httpx.Client, script: Script, **kwargs: Any) -> OllamaChatClient:
    return OllamaChatClient(
        "http://127.0.0.1:11434/",
        "qwen3:4b",
        http_client=http,
        sleep=script.sleeps.append,
        **kwargs,
    )


def ollama_reply(content: str) -> dict[str, Any]:
    return {
        "model": "qwen3:4b",
        "created_at": "2026-06-01T12:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "stop",
    }


def test_ollama_request_shape(http_script: Build) -> None:
    http, script = http_script((200, ollama_reply('[{"content": "x"}]')))
    client = ollama(http, script)
    assert client.name == "ollama:qwen3:4b"
    assert client.complete("sys", "user\ntext", 128, 5.0) == '[{"content": "x"}]'
    assert script.requests[0] == {
        "model": "qwen3:4b",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "user\ntext"},
        ],
        "stream": False,
        "options": {"num_predict": 128},
    }


def test_openai_judge_asks_for_the_schema(http_script: Build) -> None:
    http, script = http_script((200, chat_completion('{"label": "update", "reason": "moved"}')))
    answer = judge_with_llm(openai(http, script), "Standup moved to 10:00.", "Standup is 9:30.")
    assert answer == LLMRuling("update", "moved")
    sent = script.requests[0]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == "record_judgement"
    assert sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["schema"] == dict(JUDGE_TOOL.schema)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"label": "update", "reason": ', "malformed JSON"),
        ('["update"]', "not an object"),
        ('{"label": "probably update", "reason": "x"}', "not one of"),
    ],
)
def test_openai_judge_rejects_a_bad_answer(http_script: Build, content: str, message: str) -> None:
    http, script = http_script((200, chat_completion(content)))
    with pytest.raises(LLMError, match=message):
        judge_with_llm(openai(http, script), "a", "b")


def test_ollama_judge_sets_the_format_to_the_schema(http_script: Build) -> None:
    http, script = http_script((200, ollama_reply('{"label": "new", "reason": "other team"}')))
    answer = judge_with_llm(ollama(http, script), "a", "b")
    assert answer == LLMRuling("new", "other team")
    assert script.requests[0]["format"] == dict(JUDGE_TOOL.schema)


def test_ollama_judge_malformed_json(http_script: Build) -> None:
    http, script = http_script((200, ollama_reply("update, I think")))
    with pytest.raises(LLMError, match=r"Ollama model 'qwen3:4b' answered with malformed JSON"):
        judge_with_llm(ollama(http, script), "a", "b")


def test_ollama_missing_model(http_script: Build) -> None:
    http, script = http_script((404, {"error": "model 'qwen3:4b' not found"}))
    with pytest.raises(LLMError, match=r"not found.*ollama pull qwen3:4b"):
        ollama(http, script).complete("s", "u", 5, 5.0)


def test_ollama_down(http_script: Build) -> None:
    http, script = http_script(httpx.ConnectError("connection refused"))
    with pytest.raises(LLMError, match=r"cannot reach Ollama at http://127\.0\.0\.1:11434"):
        ollama(http, script, retries=2).complete("s", "u", 5, 5.0)
    assert len(script.requests) == 3


def test_ollama_unexpected_answer(http_script: Build) -> None:
    http, script = http_script((200, {"response": "generate-style answer"}))
    with pytest.raises(LLMError, match=r"no message\.content"):
        ollama(http, script).complete("s", "u", 5, 5.0)


def test_concurrency_is_limited_per_process() -> None:
    """Two clients with max_concurrency=2 share two slots, whatever the thread count."""
    lock = threading.Lock()
    in_flight = peak = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.02)
        with lock:
            in_flight -= 1
        return httpx.Response(200, json=chat_completion("ok"))

    clients = [
        OpenAICompatClient(
            "http://gw/v1",
            "m",
            max_concurrency=2,
            http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        )
        for _ in range(2)
    ]
    threads = [
        threading.Thread(target=clients[i % 2].complete, args=("s", "u", 5, 5.0)) for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak == 2
