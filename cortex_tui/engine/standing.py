"""A project's standing context: the rules and preferences in force, given when a session
starts, before the person has typed anything a recall could match.

Not a ranking: a rule applies whatever the first prompt turns out to be. The project's own
come before the global ones (the nearer rule is the one that differs from the default),
then the more important, then the newer; whatever fits the small budget is given.
"""

from __future__ import annotations

from typing import NamedTuple

from cortex_tui.engine.local import LocalEngine
from cortex_tui.format import STANDING_PREAMBLE, framed_block, line_memory_id, stored_line
from cortex_tui.models import Memory, MemoryType, Scope
from cortex_tui.store.base import MemoryFilter

STANDING_CANDIDATES = 200
"""Rules and preferences read at most from each of the project and the global ones: more
than any budget here holds."""


class StandingBlock(NamedTuple):
    text: str
    memories: list[Memory]
    """The memories the block gives (those that fitted), in its order."""


def standing_block(
    engine: LocalEngine, project: str | None, budget_tokens: int, max_chars: int
) -> StandingBlock:
    """The block of `project`'s rules and preferences, then the global ones, within the
    budget (no project: the global ones alone); empty when there are none, or no budget."""
    if budget_tokens <= 0:
        return StandingBlock("", [])
    scopes = ([MemoryFilter(project=project, project_only=True)] if project else []) + [
        MemoryFilter(global_only=True)
    ]
    memories: list[Memory] = []
    for scope in scopes:
        wanted = scope.model_copy(
            update={
                "types": [MemoryType.RULE, MemoryType.PREFERENCE],
                "scopes": [Scope.PERMANENT, Scope.PROJECT, Scope.TEAM],
            }
        )
        found = engine.list_memories(wanted, limit=STANDING_CANDIDATES).memories
        memories += sorted(found, key=_standing_order)
    now = engine.now()
    lines = (stored_line(memory, now) for memory in memories)
    chars_per_token = engine.settings.recall.chars_per_token
    text = framed_block(lines, STANDING_PREAMBLE, budget_tokens, chars_per_token, max_chars)
    given = {line_memory_id(line) for line in text.split("\n")}
    return StandingBlock(text, [memory for memory in memories if memory.short_id in given])


def _standing_order(memory: Memory) -> tuple[float, float]:
    return (-memory.importance, -memory.updated_at.timestamp())
