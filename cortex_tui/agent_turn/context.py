"""The context a pre hook gives: the project's standing block when the plan asks for it,
then the recalled one, within the plan's cap together — put together here, the one way
for every surface (the service, the in-process hook, a team server's route).

What differs between them is where the two blocks come from, which each passes in: the
service answers a repeated prompt from its cache and adds a member's team store; the
in-process hook asks the store it opened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cortex_tui.agent_turn.plan import PrePlan
from cortex_tui.agent_turn.sessions import SessionTurns
from cortex_tui.config import Settings
from cortex_tui.engine.standing import StandingBlock
from cortex_tui.format import without_lines_of
from cortex_tui.given.record import Given
from cortex_tui.models import RecallResponse
from cortex_tui.recall.gate import prompt_floor
from cortex_tui.recall.request import RecallRequest

StandingOf = Callable[[str | None, int, int], StandingBlock]
"""The standing block of a project (none: the global rules alone) within a token budget
and a number of characters."""
Recall = Callable[[RecallRequest], tuple[RecallResponse, list[str]]]
"""A recall's answer, and the ids of the memories whose reads it leaves to be counted
(none for an answer given before, from a cache)."""


@dataclass
class ContextAnswer:
    """A pre hook's context, what it was made of (for its given record) and the
    recalled memories whose reads are still to be counted."""

    given: Given = field(default_factory=Given)
    read: list[str] = field(default_factory=list)


def assemble_context(
    plan: PrePlan, settings: Settings, standing_of: StandingOf, recall: Recall
) -> ContextAnswer:
    """The plan's context. The recall leaves out what the session's start gave already
    (read before either block is made), holds back what the relevance gate finds
    bearing on nothing, and never counts a read itself: the caller does, after the
    answer. A memory in both blocks is given once, in the standing block."""
    answer = ContextAnswer()
    given = answer.given
    session = SessionTurns(settings.home, plan.session) if plan.session else None
    already = session.standing_given() if session is not None and plan.query else []

    def standing(max_chars: int) -> str:
        budget = settings.hooks.standing_context_tokens
        block = standing_of(plan.project, budget, max_chars)
        given.standing = block.memories
        if session is not None:
            session.note_standing([memory.id for memory in block.memories])
        return block.text

    def recalled(max_chars: int) -> str:
        request = RecallRequest(
            query=plan.query,
            project=plan.project,
            max_chars=max_chars,
            rerank_budget_ms=settings.recall.rerank_budget_ms_hook,
            update_access=False,
            given_already=already,
            min_relevance=prompt_floor(settings.recall, settings.hooks),
            include_archive=settings.archive.enabled,
        )
        response, read = recall(request)
        answer.read.extend(read)
        given.recalled = response.results
        given.held_back = response.held_back
        given.quotes = response.quotes
        return response.context

    given.context = _within_cap(plan, standing, recalled)
    return answer


def _within_cap(plan: PrePlan, standing: Callable[[int], str], recall: Callable[[int], str]) -> str:
    """The standing block, then the recalled one, within the plan's cap together; each
    callable takes the characters left for it."""
    given = standing(plan.max_chars) if plan.standing else ""
    recalled = ""
    if plan.query:
        left = plan.max_chars - (len(given) + 1 if given else 0)
        recalled = recall(left) if left > 0 else ""
        if given and recalled:
            recalled = without_lines_of(recalled, given)
    return "\n".join(block for block in (given, recalled) if block)
