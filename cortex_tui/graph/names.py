"""Name keys shared by resolution and curation, so both agree on what "the same name" is."""

from __future__ import annotations

import re

from cortex_tui.graph.index import normalise_name
from cortex_tui.models import Entity, EntityType

_NUMBER = re.compile(r"\d+")
# A name wholly contained in another ("priya" in "priya raman") scores a perfect token-set
# ratio; below this many characters the shared part is too generic ("api", "db", "ci")
# for that to mean the same thing.
MIN_CONTAINED_CHARS = 4
_PREDICATE_SEPARATORS = re.compile(r"[^\w]+|_+", re.UNICODE)


def entity_keys(entity: Entity) -> list[str]:
    """The normalised name first, then the normalised aliases; empty keys dropped."""
    keys = [normalise_name(entity.name), *(normalise_name(a) for a in entity.aliases)]
    return [key for key in dict.fromkeys(keys) if key]


def types_compatible(a: EntityType, b: EntityType) -> bool:
    """OTHER means "type unknown", so it may match anything; known types must agree."""
    return a is b or EntityType.OTHER in (a, b)


def numbers_differ(a: str, b: str) -> bool:
    """True when both keys carry numbers and the numbers differ.

    Fuzzy and vector similarity rate "python 3 11" and "python 3 12" as near-identical,
    but a version is exactly what tells them apart, so such pairs never fold together.
    """
    numbers_a, numbers_b = _NUMBER.findall(a), _NUMBER.findall(b)
    return bool(numbers_a and numbers_b) and numbers_a != numbers_b


def weakly_contained(a: str, b: str) -> bool:
    """True when one key's words are a strict subset of the other's and the shared words
    are too short to identify anything ("api" in "atlas api")."""
    words_a, words_b = set(a.split()), set(b.split())
    if words_a == words_b or not (words_a <= words_b or words_b <= words_a):
        return False
    return len(" ".join(words_a & words_b)) < MIN_CONTAINED_CHARS


def normalise_predicate(predicate: str) -> str:
    """ "Works at" and "works-at" must be the same edge, or exclusivity could not apply."""
    return _PREDICATE_SEPARATORS.sub("_", predicate.strip().casefold()).strip("_")
