"""Parsing the LLM judge's one-word verdict."""

from __future__ import annotations

import pytest

from cortex_tui.capture.judge import judge_with_llm, parse_verdict
from cortex_tui.llm.base import LLMError

from .fakes import FakeLLM


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("update", "update"),
        ("Update.", "update"),
        ("  CONTRADICTION\n", "contradiction"),
        ("restatement", "restatement"),
        ("Unrelated", "unrelated"),
        ("**update** — the new statement says 'now'", "update"),
        ('{"verdict": "contradiction", "reason": "both cannot hold"}', "contradiction"),
        ('{"answer": "restatement"}', "restatement"),
        ("The new statement contradicts the old one.", "contradiction"),
        ("It is a duplicate.", "restatement"),
        ("distinct", "unrelated"),
    ],
)
def test_verdicts(answer: str, verdict: str) -> None:
    assert parse_verdict(answer) == verdict


@pytest.mark.parametrize("answer", ["", "I cannot tell.", "updated", "{}"])
def test_no_verdict(answer: str) -> None:
    assert parse_verdict(answer) is None


def test_judge_sends_both_statements() -> None:
    llm = FakeLLM("restatement")
    assert judge_with_llm(llm, "Priya leads Atlas.", "Priya is Atlas's lead.") == "restatement"
    system, user, max_tokens, _ = llm.calls[0]
    assert "update" in system and "contradiction" in system
    assert user.index("<existing>") < user.index("<new>")
    assert max_tokens == 64


def test_judge_without_verdict_raises() -> None:
    with pytest.raises(LLMError, match=r"fake:scripted gave no verdict"):
        judge_with_llm(FakeLLM("hmm"), "a", "b")
