"""An in-memory view of the entity graph for the recall graph channel.

Entities and relations are few compared with memories, so the engine keeps this view
and rebuilds it only when the graph changes. It answers three questions per query: which
entities the query names (rapidfuzz over names and aliases), which memories mention an
entity within `max_hops` relations of those (with the real hop distance), and which
speakers it names.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence

from rapidfuzz import fuzz

from cortex_tui.models import ANSWERER_ROLES, ASKER_ROLES, Entity, EntityType, Relation

_PUNCT = re.compile(r"[^\w\s+#]", re.UNICODE)  # keep C++ and C# apart from C
_SPACE = re.compile(r"\s+")


def normalise_name(name: str) -> str:
    """The key entities are matched on: casefolded, punctuation dropped, spaces collapsed."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _PUNCT.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


class _NameMatcher:
    """Which of some named things a query names: by whole words, or fuzzily.

    A name matches when it appears as whole words in the query, or, for names of four
    characters or more, when rapidfuzz's partial ratio reaches the threshold (catches
    "postgres" for "Postgres 16", "kubernetes" typed "kubernets"). A person also
    matches by one part of their name as a whole word ("Priya").
    """

    def __init__(self) -> None:
        self._names: list[tuple[str, str, bool]] = []  # (key, target, fuzzy allowed)

    def add(self, target: str, names: Sequence[str], *, person: bool) -> None:
        for name in names:
            key = normalise_name(name)
            if key:
                self._names.append((key, target, True))
        if person:
            # People are mostly named by first (or last) name alone in a prompt.
            for name in names:
                for part in normalise_name(name).split():
                    if len(part) >= 3:
                        self._names.append((part, target, False))

    def named_in(self, query: str, threshold: float) -> set[str]:
        text = normalise_name(query)
        if not text:
            return set()
        padded = f" {text} "
        found: set[str] = set()
        for key, target, fuzzy in self._names:
            whole_words = f" {key} " in padded
            close = fuzzy and len(key) >= 4 and fuzz.partial_ratio(key, text) >= threshold
            if whole_words or close:
                found.add(target)
        return found


_YOU_SAID = re.compile(
    r"\byou(?:\s+\w+)?\s+(?:recommended|suggested|told|said|mentioned|provided|gave|"
    r"created|wrote|listed|shared|explained|proposed|came\s+up\s+with)\b|"
    r"\bdid\s+you\s+(?:\w+\s+)?(?:recommend|suggest|tell|say|mention|provide|give|"
    r"create|write|list|share|explain|propose|come\s+up\s+with)\b|"
    r"\byour\s+(?:recommendations?|suggestions?|advice|answer|list)\b",
    re.IGNORECASE,
)
"""A question about what the agent said before ("the sealant you recommended", "what did
you suggest"); "can you recommend …" asks for something new and is not one."""
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.IGNORECASE)


class GraphIndex:
    """Entities, their relations, and the speakers memories record (people by their
    name, so a query that names one reaches what they said)."""

    def __init__(
        self,
        entities: Iterable[Entity],
        relations: Iterable[Relation],
        speakers: Iterable[str] = (),
    ) -> None:
        self.entities: dict[str, Entity] = {e.id: e for e in entities}
        self.speakers: frozenset[str] = frozenset(speakers)
        self._entity_names = _NameMatcher()
        for entity in self.entities.values():
            self._entity_names.add(
                entity.id,
                [entity.name, *entity.aliases],
                person=entity.type is EntityType.PERSON,
            )
        self._speaker_names = _NameMatcher()
        for speaker in self.speakers:
            self._speaker_names.add(speaker, [speaker], person=True)
        self._neighbours: dict[str, set[str]] = defaultdict(set)
        for relation in relations:
            if relation.valid_to is not None:
                continue
            if relation.subject_id in self.entities and relation.object_id in self.entities:
                self._neighbours[relation.subject_id].add(relation.object_id)
                self._neighbours[relation.object_id].add(relation.subject_id)

    def __bool__(self) -> bool:
        return bool(self.entities or self.speakers)

    def entities_in(self, query: str, threshold: float) -> set[str]:
        """Ids of entities the query names (by name or alias, see `_NameMatcher`)."""
        return self._entity_names.named_in(query, threshold)

    def speakers_in(self, query: str, threshold: float, *, first_person: bool = False) -> set[str]:
        """The speakers the query names, as memories record them. With `first_person`, a
        query that speaks as "I", "me" or "my" names the person asking: the speaker a
        transcript records by its role (`ASKER_ROLES`), whose turns are the facts about
        them ("what degree did I graduate with?" is answered by what the user said). A
        question about what "you" recommended, told or wrote names the agent instead."""
        named = self._speaker_names.named_in(query, threshold)
        if not first_person:
            return named
        if _YOU_SAID.search(query):  # "what you recommended": the agent's words, not mine
            return named | (ANSWERER_ROLES & self.speakers)
        if _FIRST_PERSON.search(query):
            named |= ASKER_ROLES & self.speakers
        return named

    def hops_from(self, seeds: set[str], max_hops: int) -> dict[str, int]:
        """Relation distance of every entity within `max_hops` of a seed (seeds are 0)."""
        distance = dict.fromkeys(seeds, 0)
        queue = deque(seeds)
        while queue:
            current = queue.popleft()
            if distance[current] >= max_hops:
                continue
            for neighbour in self._neighbours.get(current, ()):
                if neighbour not in distance:
                    distance[neighbour] = distance[current] + 1
                    queue.append(neighbour)
        return distance

    def memory_hops(self, query: str, threshold: float, max_hops: int) -> dict[str, int]:
        """Memories mentioning an entity near the query's entities → hop count.

        A memory that mentions a query entity itself is 1 hop away; one that mentions a
        neighbour of it, 2; and so on, so graph proximity (1 / hops) is 1.0, 0.5, 0.33.
        """
        seeds = self.entities_in(query, threshold)
        if not seeds:
            return {}
        result: dict[str, int] = {}
        for entity_id, distance in self.hops_from(seeds, max_hops).items():
            for memory_id in self.entities[entity_id].memory_ids:
                hops = distance + 1
                if hops < result.get(memory_id, hops + 1):
                    result[memory_id] = hops
        return result
