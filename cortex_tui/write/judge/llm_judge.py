"""Ask an LLM what a new statement should become next to an existing one.

Used only for the write path's close calls (`write/judge/ambiguity.py`), where the rules are
least sure. The answer is structured (a tool call, or a JSON-schema response format),
one of the five labels the pairs eval scores, with a reason the memory keeps. Anything
else — a refusal, malformed JSON, a label outside the five, no reason — is an
`LLMError`, so the caller keeps the offline decision instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from cortex_tui.capture.prompt import JUDGE_SYSTEM, judge_user_message
from cortex_tui.llm.base import JsonTool, LLMClient, LLMError

JudgeLabel = Literal["duplicate", "reinforce", "update", "contradiction", "new"]
JUDGE_LABELS: tuple[JudgeLabel, ...] = get_args(JudgeLabel)
MAX_REASON = 300
"""Characters of the model's reason kept (a model may write an essay)."""

JUDGE_TOOL = JsonTool(
    name="record_judgement",
    description=("Record what the NEW statement becomes next to the EXISTING memory, and why."),
    schema={
        "type": "object",
        "properties": {
            "label": {"type": "string", "enum": list(JUDGE_LABELS)},
            "reason": {
                "type": "string",
                "description": "one sentence: what decided it",
            },
        },
        "required": ["label", "reason"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True, slots=True)
class LLMRuling:
    label: JudgeLabel
    reason: str


def judge_with_llm(
    client: LLMClient,
    new: str,
    existing: str,
    *,
    max_tokens: int = 300,
    timeout: float = 30.0,
) -> LLMRuling:
    """The model's label and reason for `new` against `existing`."""
    answer = client.complete_json(
        JUDGE_SYSTEM, judge_user_message(new, existing), JUDGE_TOOL, max_tokens, timeout
    )
    label = answer.get("label")
    if not isinstance(label, str) or label.strip().lower() not in JUDGE_LABELS:
        raise LLMError(
            f"{client.name} answered the label {label!r}, not one of {', '.join(JUDGE_LABELS)}"
        )
    reason = answer.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise LLMError(f"{client.name} gave no reason for {label!r}")
    chosen: JudgeLabel = next(x for x in JUDGE_LABELS if x == label.strip().lower())
    return LLMRuling(chosen, " ".join(reason.split())[:MAX_REASON])
