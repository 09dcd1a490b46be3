"""The demo's recorded turns: a few prompts of two agent sessions and one MCP recall, put
through the real recall on the demo store and recorded as the hooks record them, so the
Given pane (and `cortex-tui given`) have something true to show. Each turn's time is
relative to the engine's clock; its record id comes from its label, so loading twice
records nothing new."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from cortex_tui.agent_turn.plan import CONTEXT_CAP
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.standing import standing_block
from cortex_tui.format import without_lines_of
from cortex_tui.given.record import Asker, Given, GivenRecord, build_record, results_block
from cortex_tui.recall.request import RecallRequest

HOOK_MAX_CHARS = CONTEXT_CAP - 200
"""The cap a pre hook puts on its block (`agent_turn/plan.py`)."""


def record_demo_turns(
    engine: LocalEngine, sessions: list[dict[str, Any]], id_of: Callable[[str], str]
) -> int:
    """Record the turns of `sessions` (the data set's) not recorded yet; how many were.
    `id_of`: a record's id from its label."""
    recorded = 0
    for session in sessions:
        for number, turn in enumerate(session["prompts"]):
            record_id = id_of(f"turn:{session['session']}:{number}")
            if engine.given.log.find(record_id) is not None:
                continue
            record = _turn(engine, session, turn, first=number == 0)
            engine.given.record(record.model_copy(update={"id": record_id}))
            recorded += 1
    return recorded


def _turn(
    engine: LocalEngine, session: dict[str, Any], turn: dict[str, Any], *, first: bool
) -> GivenRecord:
    at = engine.now() - timedelta(minutes=turn["minutes_ago"])
    agent, project, prompt = session["agent"], session["project"], turn["prompt"]
    hooked = agent != "mcp"
    asker = Asker(
        agent=agent,
        trigger="prompt" if hooked else "recall",
        session=session["session"],
        project=project,
        query=prompt,
        max_chars=HOOK_MAX_CHARS if hooked else None,
    )
    given = Given()
    left = HOOK_MAX_CHARS
    if first and hooked:  # a session's first prompt also gets its standing rules
        budget = engine.settings.hooks.standing_context_tokens
        standing = standing_block(engine, project, budget, HOOK_MAX_CHARS)
        given.standing, given.context = standing.memories, standing.text
        left -= len(standing.text) + 1 if standing.text else 0
    request = RecallRequest(
        query=prompt, project=project, max_chars=left if hooked else None, update_access=False
    )
    response = engine.recall(request)
    given.recalled = response.results
    if not hooked:
        given.context = results_block(response.results, at)
        return build_record(asker, at, given, None)
    recalled = without_lines_of(response.context, given.context)
    given.context = "\n".join(block for block in (given.context, recalled) if block)
    return build_record(asker, at, given, engine.settings.recall.budget_tokens)
