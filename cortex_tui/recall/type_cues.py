"""Memory types a query asks for by name: "the rules for merging", "our deploy runbook".

When a query names a kind of memory, the type prior follows the query instead of the
configured order (rule > procedure > fact > episode > preference): a question about
preferences should not see rules lifted above the preference that answers it. Only the
kind's own words count. "How do I …" reads like a procedure question but as often asks
for a fact or a preference ("how big should my pull request be"), so intent guessed from
phrasing stays out.
"""

from __future__ import annotations

from collections.abc import Set

from cortex_tui.models import MemoryType

CUES: dict[MemoryType, frozenset[str]] = {
    MemoryType.RULE: frozenset(
        {
            "rule",
            "rules",
            "policy",
            "policies",
            "convention",
            "conventions",
            "guideline",
            "guidelines",
        }
    ),
    MemoryType.PROCEDURE: frozenset(
        {"procedure", "procedures", "steps", "runbook", "runbooks", "instructions"}
    ),
    MemoryType.PREFERENCE: frozenset(
        {"prefer", "prefers", "preferred", "preference", "preferences"}
    ),
    MemoryType.EPISODE: frozenset(
        {"incident", "incidents", "outage", "outages", "postmortem", "episode", "episodes"}
    ),
    MemoryType.FACT: frozenset({"fact", "facts"}),
}


def named_types(words: Set[str]) -> frozenset[MemoryType]:
    """The types whose cue words appear among the query's (casefolded) words."""
    return frozenset(kind for kind, cues in CUES.items() if not cues.isdisjoint(words))
