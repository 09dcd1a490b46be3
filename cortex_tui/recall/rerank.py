"""Optional LLM re-rank of a close top-4 (recall step 6).

Only when the top four scores are within `spread` of each other — the multi-factor score
cannot tell them apart — and only within a latency budget (hooks 100 ms, interactive
3000 ms). On timeout, error or an unusable answer the multi-factor order stands.
"""

from __future__ import annotations

import logging
import re

from cortex_tui.llm.base import LLMClient, within_budget
from cortex_tui.models import RecallResult

log = logging.getLogger(__name__)

TOP = 4
SYSTEM = (
    "You rank stored notes by how well they answer a question. Reply with the note "
    "numbers only, most relevant first, separated by commas."
)


def rerank(
    llm: LLMClient, query: str, results: list[RecallResult], spread: float, budget_ms: int
) -> list[RecallResult]:
    head = results[:TOP]
    if len(head) < 2 or budget_ms <= 0 or head[0].score - head[-1].score > spread:
        return results
    order = _ask(llm, query, head, budget_ms / 1000)
    if order is None:
        return results
    moved = [head[i].model_copy(update={"reranked_from": head[i].rank}) for i in order]
    reordered = [*moved, *results[TOP:]]
    return [r.model_copy(update={"rank": rank}) for rank, r in enumerate(reordered, 1)]


def _ask(llm: LLMClient, query: str, head: list[RecallResult], seconds: float) -> list[int] | None:
    notes = "\n".join(f"[{i}] {r.memory.content}" for i, r in enumerate(head, 1))
    user = f"Question: {query}\n\nNotes:\n{notes}"
    answer, failure = within_budget(seconds, lambda: llm.complete(SYSTEM, user, 20, seconds))
    if answer is None:  # the multi-factor order stands
        log.info("re-rank skipped: %s", failure)
        return None
    return parse_order(answer, len(head))


def parse_order(answer: str, count: int) -> list[int] | None:
    """0-based order from "2, 1, 4, 3"; missing numbers keep their relative order after
    the named ones; None when the answer names none of them."""
    named: list[int] = []
    for token in re.findall(r"\d+", answer):
        index = int(token) - 1
        if 0 <= index < count and index not in named:
            named.append(index)
    if not named:
        return None
    return named + [i for i in range(count) if i not in named]
