"""The LLM judge's structured answer: one of five labels and a reason, or an error."""

from __future__ import annotations

from typing import Any

import pytest

from cortex_tui.llm.base import LLMError
from cortex_tui.write.judge.llm_judge import JUDGE_LABELS, JUDGE_TOOL, judge_with_llm
from tests.capture.fakes import FakeLLM


@pytest.mark.parametrize("label", JUDGE_LABELS)
def test_each_label_comes_back_with_its_reason(label: str) -> None:
    llm = FakeLLM(json_answer={"label": label, "reason": "  because\nof the cue  "})
    answer = judge_with_llm(llm, "Priya now leads Atlas.", "Marco leads Atlas.")
    assert (answer.label, answer.reason) == (label, "because of the cue")


def test_label_case_and_spaces_are_forgiven() -> None:
    answer = judge_with_llm(FakeLLM(json_answer={"label": " Update ", "reason": "moved"}), "a", "b")
    assert answer.label == "update"


def test_sends_both_statements_and_the_schema() -> None:
    llm = FakeLLM(json_answer={"label": "reinforce", "reason": "same claim"})
    judge_with_llm(llm, "Priya leads Atlas.", "Priya is <Atlas>'s lead.")
    system, user, max_tokens, _ = llm.calls[0]
    assert all(label in system for label in JUDGE_LABELS)
    assert user.index("<existing>") < user.index("<new>")
    assert "&lt;Atlas&gt;" in user
    assert llm.tools == [JUDGE_TOOL]
    assert JUDGE_TOOL.schema["properties"]["label"]["enum"] == list(JUDGE_LABELS)
    assert max_tokens == 300


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"label": "maybe", "reason": "unsure"}, "not one of"),
        ({"label": "restatement", "reason": "old four-way label"}, "not one of"),
        ({"label": 3, "reason": "a number"}, "not one of"),
        ({"reason": "no label"}, "not one of"),
        ({"label": "update"}, "no reason"),
        ({"label": "update", "reason": "   "}, "no reason"),
    ],
)
def test_an_answer_outside_the_schema_is_an_error(answer: dict[str, Any], message: str) -> None:
    with pytest.raises(LLMError, match=message):
        judge_with_llm(FakeLLM(json_answer=answer), "a", "b")


def test_a_long_reason_is_cut() -> None:
    answer = judge_with_llm(FakeLLM(json_answer={"label": "new", "reason": "x" * 5000}), "a", "b")
    assert len(answer.reason) == 300
