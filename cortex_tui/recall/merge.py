"""One answer from two stores' answers to the same recall: a team member's own memories
and its team's shared ones (`serve --tenants`). Both were ranked by the same score
against the same request, so their scores compare: the results are interleaved by score,
cut to the request's limit (three times it when the request sets a floor: the stores were
asked without one, for that many, so a shared memory may join the member's own), ranked
anew, put through the relevance gate, and the context block is built again from them
within the request's budget."""

from __future__ import annotations

from datetime import datetime

from cortex_tui.config import RecallConfig
from cortex_tui.format import format_context
from cortex_tui.models import HeldBack, RecallResponse
from cortex_tui.recall.gate import Floors, apply_gate, gate_pool
from cortex_tui.recall.request import RecallRequest


def merge_recalls(
    request: RecallRequest,
    answers: list[RecallResponse],
    config: RecallConfig,
    now: datetime,
) -> RecallResponse:
    limit = request.limit or config.default_limit
    read = limit if request.min_relevance is None else gate_pool(limit)
    pooled = sorted(
        (result for answer in answers for result in answer.results),
        key=lambda result: result.score,
        reverse=True,
    )[:read]
    results = [result.model_copy(update={"rank": rank}) for rank, result in enumerate(pooled, 1)]
    held_back: list[HeldBack] = []
    if request.min_relevance is not None:
        floors = Floors.of(request.min_relevance, config.gate_companion_floor)
        kept = apply_gate(results, floors, limit)
        results, held_back = kept.given, kept.held_back
    # Each store quotes its own archive (a member's turns are archived in its own store):
    # the best of them, as many as the answer that quoted most.
    quotes = sorted(
        {quote.id: quote for answer in answers for quote in answer.quotes}.values(),
        key=lambda quote: -quote.gate.relevance,
    )[: max((len(answer.quotes) for answer in answers), default=0)]
    return RecallResponse(
        query=request.query,
        results=results,
        context=format_context(
            results,
            now,
            request.budget_tokens or config.budget_tokens,
            config.chars_per_token,
            request.max_chars,
            quotes,
        ),
        quotes=quotes,
        candidates=sum(answer.candidates for answer in answers),
        elapsed_ms=max(answer.elapsed_ms for answer in answers),
        notices=list(dict.fromkeys(notice for answer in answers for notice in answer.notices)),
        held_back=held_back,
    )
