"""The names a rename statement links: "the shopfront service was renamed to storefront".

A supersession that renames something must not lose the old name: people and old notes
keep using it. The write path records the pair, and the engine makes the new name the
entity's name with the old one as its alias, so recall and the graph resolve both.
"""

from __future__ import annotations

import re

_WORD_PATTERN = r"\w+(?:[./-]\w+)*"
_NAME = r"`?(" + _WORD_PATTERN + r"(?: [A-Z]" + _WORD_PATTERN + r"){0,3})`?"
_RENAMED = re.compile(
    r"\b(?i:renamed|rebranded)(?:(?i: from )" + _NAME + r")?(?i: (?:to|as) )" + _NAME
)
_NOW_CALLED = re.compile(r"\b(?i:(?:is|are) now (?:called|named|known as) )" + _NAME)
_WORD = re.compile(_WORD_PATTERN)
GENERIC = frozenset(
    """the a an our service services app application team project repo repository module
    library package channel database bucket cluster file script job queue topic table branch
    api endpoint server site product tool was were is are has have been""".split()
)
"""Words around a name that are not the name ("the *shopfront* service")."""


def find_rename(old: str, new: str) -> tuple[str, str] | None:
    """(old name, new name) when `new` renames something `old` names, else None."""
    match = _RENAMED.search(new)
    if match:
        before, renamed_to = match.group(1), match.group(2)
    elif match := _NOW_CALLED.search(new):
        before, renamed_to = None, match.group(1)
    else:
        return None
    former = before or _former_name(old, new[: match.start()], renamed_to)
    if not former or former.casefold() == renamed_to.casefold():
        return None
    return former, renamed_to


def _former_name(old: str, lead: str, renamed_to: str) -> str | None:
    """The name the new statement's subject shares with the old statement: a word of
    the text before "renamed" that the old statement also uses and that is not a
    generic word ("service", "the")."""
    said_before: list[str] = _WORD.findall(old)
    old_words = {w.casefold() for w in said_before}
    lead_words: list[str] = _WORD.findall(lead)
    for word in lead_words:
        folded = word.casefold()
        if folded in old_words and folded not in GENERIC and folded != renamed_to.casefold():
            return word
    later_words = said_before[1:]  # "It was renamed to …": the old name
    return next((w for w in later_words if w[:1].isupper() and w.casefold() not in GENERIC), None)
