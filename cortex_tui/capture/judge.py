"""Ask an LLM whether a new statement updates, contradicts or restates an existing one.

Used in the write path's "related" similarity band, where embeddings cannot tell a change
("Alice works at Globex" after "... at Initech") from a restatement. The answer is one
word, but models add punctuation, prose or JSON, so the first verdict word wins.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from cortex_tui.capture.prompt import JUDGE_SYSTEM, judge_user_message
from cortex_tui.llm.base import LLMClient, LLMError

JudgeVerdict = Literal["update", "contradiction", "restatement", "unrelated"]

_WORDS: dict[str, JudgeVerdict] = {
    "update": "update",
    "updates": "update",
    "contradiction": "contradiction",
    "contradicts": "contradiction",
    "contradictory": "contradiction",
    "conflict": "contradiction",
    "restatement": "restatement",
    "restates": "restatement",
    "duplicate": "restatement",
    "unrelated": "unrelated",
    "distinct": "unrelated",
}
_WORD = re.compile(r"[a-z]+")


def judge_with_llm(
    client: LLMClient,
    new: str,
    existing: str,
    *,
    max_tokens: int = 64,
    timeout: float = 30.0,
) -> JudgeVerdict:
    """The model's verdict on `new` against `existing`.

    Raises `LLMError` when the call fails or the answer names no verdict, so the caller
    falls back to the offline judge instead of guessing.
    """
    answer = client.complete(JUDGE_SYSTEM, judge_user_message(new, existing), max_tokens, timeout)
    verdict = parse_verdict(answer)
    if verdict is None:
        raise LLMError(
            f"{client.name} gave no verdict ({answer.strip()[:80]!r}); "
            "the offline judge decides instead"
        )
    return verdict


def parse_verdict(answer: str) -> JudgeVerdict | None:
    """The verdict in `answer`: a JSON `{"verdict": ...}` or the first verdict word."""
    text = answer.strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            keyed = [parsed.get(key) for key in ("verdict", "answer", "label")]
            text = next((str(v) for v in keyed if isinstance(v, str)), json.dumps(parsed))
    for word in _WORD.findall(text.lower()):
        if word in _WORDS:
            return _WORDS[word]
    return None
