"""Keyword heuristics that give a memory a type when its author gave none.

Order matters: a rule ("never push to main") often also reads like a preference, and a
procedure ("to release, run ...") like a fact, so the more specific cues are tried first.
"""

from __future__ import annotations

import re

from cortex_tui.models import MemoryType

_RULE = re.compile(
    r"\b(never|always|must|must not|mustn't|do not|don't|shall|is required|are required|"
    r"required to|forbidden|not allowed|only ever|every change|policy)\b",
    re.IGNORECASE,
)
_PROCEDURE = re.compile(
    r"(^|\b)(to [a-z]+[^,.;]*[,:]|steps?:|first[, ]|then run|run `|step \d|how to|"
    r"procedure|workflow:)",
    re.IGNORECASE,
)
_EPISODE = re.compile(
    r"\b(yesterday|today|last (week|month|night|sprint)|on (mon|tues|wednes|thurs|fri|satur|sun)"
    r"day|incident|outage|postmortem|we decided|decided to|happened|broke|rolled back|"
    r"(19|20)\d\d-\d\d-\d\d|in (january|february|march|april|may|june|july|august|september|"
    r"october|november|december))\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(prefers?|preferred|likes?|dislikes?|favou?rite|rather than|instead of|would rather|"
    r"wants?|hates?|enjoys?)\b",
    re.IGNORECASE,
)


def classify(content: str) -> MemoryType:
    if _RULE.search(content):
        return MemoryType.RULE
    if _PROCEDURE.search(content):
        return MemoryType.PROCEDURE
    if _PREFERENCE.search(content):
        return MemoryType.PREFERENCE
    if _EPISODE.search(content):
        return MemoryType.EPISODE
    return MemoryType.FACT
