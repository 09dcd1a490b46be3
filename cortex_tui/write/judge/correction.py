"""What a person's correction says was wrong, and whether a stored memory says it.

A correction ("No, use pnpm, not npm") settles which of two claims holds: the stored one
it contradicts is not a second opinion to keep beside it (a conflict) but the old value
(an update). When the correction names the wrong side ("not npm", "instead of npm"),
a stored memory close in meaning that states that side is the one it corrects, even
when the two are worded too differently for the judge to align them.
"""

from __future__ import annotations

import re

_WRONG_SIDE = re.compile(
    r"\b(?:(?:do not|don't|never) use|instead of|rather than|in place of|stop using|no more"
    r"|not|never)\s+(?P<value>`[^`]{1,60}`|[\w./@+#:-]+(?:\s+[\w./@+#:-]+)?)",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    "a an the to be is are was were it this that any anything yet just only so "
    "sure here there again always and or but".split()
)
_NEGATED_BEFORE = re.compile(
    r"\b(?:not|never|no|don't|do not|instead of|rather than|without|stop using)\s+(?:\S+\s+)?$",
    re.IGNORECASE,
)


def wrong_values(correction: str) -> list[str]:
    """What the correction names as wrong, as written: the word or two after "not",
    "instead of", "rather than", "don't use"... ("not npm" → "npm"), function words left
    out (in "not a problem" there is nothing named)."""
    values: list[str] = []
    for found in _WRONG_SIDE.finditer(correction):
        words = [w for w in found.group("value").strip("`").split() if w.strip(".,;:")]
        while words and words[-1].lower().strip(".,;:") in _FUNCTION_WORDS:
            words.pop()
        if words and words[0].lower() not in _FUNCTION_WORDS:
            values.append(" ".join(words).strip(".,;:"))
    return [v for v in dict.fromkeys(values) if v]


def stated_in(value: str, memory: str) -> bool:
    """Whether `memory` states `value` as so, not as what to avoid ("npm is used" does;
    "use pnpm, not npm" does not)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])", re.IGNORECASE)
    return any(
        not _NEGATED_BEFORE.search(memory[: found.start()]) for found in pattern.finditer(memory)
    )


def corrected_value(correction: str, memory: str) -> str | None:
    """The value the correction names as wrong and `memory` states, if any: the words
    named, or the first of them ("not production directly": "production")."""
    for value in wrong_values(correction):
        for named in dict.fromkeys((value, value.split()[0])):
            if stated_in(named, memory):
                return named
    return None
