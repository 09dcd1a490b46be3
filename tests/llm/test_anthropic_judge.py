"""The write-path judge through the real Anthropic SDK: tool use, and every way the
answer can go wrong (recorded Messages API shapes over a mock transport)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.llm.base import LLMError
from cortex_tui.write.judge.llm_judge import JUDGE_LABELS, JUDGE_TOOL, LLMRuling, judge_with_llm

from .conftest import Script, message

Build = Callable[..., tuple[AnthropicClient, Script]]


def tool_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """A forced tool call as the API returns it (`stop_reason` "tool_use")."""
    call = {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": JUDGE_TOOL.name}
    return message(content=[{**call, "input": answer}], stop_reason="tool_use")


def test_the_judge_is_a_forced_tool_call(anthropic_script: Build) -> None:
    reason = "Alice's employer changed and 'now' announces it."
    client, script = anthropic_script((200, tool_answer({"label": "update", "reason": reason})))
    answer = judge_with_llm(client, "Alice now works at Globex.", "Alice works at <Initech>.")
    assert answer == LLMRuling("update", reason)
    body = script.requests[0]
    assert body["tools"] == [
        {
            "name": "record_judgement",
            "description": JUDGE_TOOL.description,
            "input_schema": dict(JUDGE_TOOL.schema),
        }
    ]
    assert body["tools"][0]["input_schema"]["properties"]["label"]["enum"] == list(JUDGE_LABELS)
    assert body["tool_choice"] == {
        "type": "tool",
        "name": "record_judgement",
        "disable_parallel_tool_use": True,
    }
    user = body["messages"][0]["content"]
    assert "<existing>\nAlice works at &lt;Initech&gt;.\n</existing>" in user
    assert "<new>\nAlice now works at Globex.\n</new>" in user


def test_a_refusal_is_an_error(anthropic_script: Build) -> None:
    refusal = message(
        content=[],
        stop_reason="refusal",
        stop_details={"type": "refusal", "category": "cyber", "explanation": "Policy."},
    )
    client, script = anthropic_script((200, refusal))
    with pytest.raises(LLMError, match=r"declined.*Policy"):
        judge_with_llm(client, "a", "b")
    assert len(script.requests) == 1


def test_malformed_json_instead_of_the_tool_is_an_error(anthropic_script: Build) -> None:
    client, _ = anthropic_script((200, message('{"label": "update", "reason": "moved"')))
    with pytest.raises(LLMError, match="malformed JSON"):
        judge_with_llm(client, "a", "b")


def test_a_json_object_in_text_is_read_when_no_tool_was_called(anthropic_script: Build) -> None:
    """Some gateways in front of Claude drop tools; the object in the text still counts."""
    client, _ = anthropic_script((200, message('{"label": "new", "reason": "other service"}')))
    assert judge_with_llm(client, "a", "b") == LLMRuling("new", "other service")


def test_a_label_outside_the_five_is_an_error(anthropic_script: Build) -> None:
    client, _ = anthropic_script((200, tool_answer({"label": "supersede", "reason": "newer"})))
    with pytest.raises(LLMError, match="'supersede', not one of duplicate, reinforce"):
        judge_with_llm(client, "a", "b")


def test_a_timeout_is_an_error_after_the_retries(anthropic_script: Build) -> None:
    client, script = anthropic_script(httpx2.ReadTimeout("timed out"), retries=1)
    with pytest.raises(LLMError, match=r"did not answer within 2 s.*tried 2 times"):
        judge_with_llm(client, "a", "b", timeout=2.0)
    assert len(script.requests) == 2
