"""Entity resolution: which existing entity, if any, a name found in a memory refers to.

Rules run surest and cheapest first and the first that matches wins:

1. exact: the normalised name equals an entity's normalised name;
2. alias: it equals one of an entity's normalised aliases;
3. fuzzy: rapidfuzz token-set ratio ≥ `fuzzy_threshold` against a name or alias;
4. vector: cosine of the name vectors ≥ `vector_threshold` ("Postgres database" and
   "PostgreSQL DB" share few letters but one meaning);
5. llm: an optional judge callback (an LLM) shown the closest entities.

Fuzzy and vector matches also need compatible types (equal, or one is OTHER); names
whose numbers differ never match on similarity alone ("Python 3.11" vs "Python 3.12"),
and a fuzzy match by containment needs a shared part of some length ("Priya" in "Priya
Raman" matches, "API" in "Atlas API" does not). Similar spellings of different things
must not fold together: a wrong merge is far costlier to undo than a duplicate is to
merge later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from rapidfuzz import fuzz, process

from cortex_tui.config import GraphConfig
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.graph.index import normalise_name
from cortex_tui.graph.names import (
    entity_keys,
    numbers_differ,
    types_compatible,
    weakly_contained,
)
from cortex_tui.models import CandidateEntity, Entity
from cortex_tui.store.base import Store

EntityJudge = Callable[[str, list[Entity]], str | None]
"""(candidate name, closest entities) → id (or exact name) of the one it refers to, or
None when it is none of them."""

# Nearest stored name vectors examined per resolution: only the best compatible one
# counts, the rest feed the judge's shortlist.
VECTOR_CANDIDATES = 5
JUDGE_SHORTLIST = 5


class MatchRule(StrEnum):
    EXACT = "exact"
    ALIAS = "alias"
    FUZZY = "fuzzy"
    VECTOR = "vector"
    LLM = "llm"
    NEW = "new"


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome for one candidate: `entity` is None exactly when `rule` is NEW.

    `score` is the evidence of a similarity rule (token-set ratio 0–100, or cosine).
    """

    rule: MatchRule
    entity: Entity | None = None
    score: float | None = None


class EntityResolver:
    """Resolves candidates against a snapshot of the entities.

    The snapshot is taken once per batch (entities are few next to memories) and kept
    current with `add`, so a name created or aliased earlier in the same batch is found
    by the next candidate before anything is written. Vectors of entities not yet in the
    store are compared here, since the store cannot search them yet.
    """

    def __init__(
        self,
        entities: Iterable[Entity],
        store: Store,
        embedder: Embedder,
        config: GraphConfig,
        judge: EntityJudge | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._config = config
        self._judge = judge
        self._entities: dict[str, Entity] = {}
        self._keys: dict[str, list[str]] = {}
        self._name_keys: dict[str, str] = {}
        self._unstored: dict[str, Matrix] = {}
        self._vectors: dict[str, Matrix] = {}
        for entity in entities:
            self.add(entity)

    def add(self, entity: Entity, vector: Matrix | None = None) -> None:
        """Record a new or changed entity; give `vector` for one not yet in the store."""
        self._entities[entity.id] = entity
        self._keys[entity.id] = entity_keys(entity)
        self._name_keys[entity.id] = normalise_name(entity.name)
        if vector is not None:
            self._unstored[entity.id] = vector

    def entity(self, entity_id: str) -> Entity:
        """The latest version of an entity in the snapshot."""
        return self._entities[entity_id]

    def name_vector(self, name: str) -> Matrix:
        """The embedding of a name, computed once per resolver (also used to store a new
        entity's vector)."""
        if name not in self._vectors:
            self._vectors[name] = self._embedder.embed([name])[0]
        return self._vectors[name]

    def resolve(self, candidate: CandidateEntity) -> Resolution:
        key = normalise_name(candidate.name)
        if key:
            for rule, found in (
                (MatchRule.EXACT, self._exact(key, candidate, aliases=False)),
                (MatchRule.ALIAS, self._exact(key, candidate, aliases=True)),
            ):
                if found is not None:
                    return Resolution(rule, found)
            fuzzy = self._fuzzy(key, candidate)
            if fuzzy is not None:
                return Resolution(MatchRule.FUZZY, *fuzzy)
        nearest = self._nearest_vectors(candidate, key)
        for entity, cosine in nearest:
            if cosine >= self._config.vector_threshold:
                return Resolution(MatchRule.VECTOR, entity, cosine)
        if self._judge is not None:
            judged = self._ask(self._judge, candidate, key, [entity for entity, _ in nearest])
            if judged is not None:
                return Resolution(MatchRule.LLM, judged)
        return Resolution(MatchRule.NEW)

    @staticmethod
    def _compatible(entity: Entity, candidate: CandidateEntity, key: str, matched: str) -> bool:
        """May a similarity rule match `candidate` (key `key`) to `entity` through its
        name or alias `matched`?"""
        return types_compatible(entity.type, candidate.type) and not numbers_differ(matched, key)

    def _exact(self, key: str, candidate: CandidateEntity, *, aliases: bool) -> Entity | None:
        """A name is a key, so the type does not veto it; among several entities with
        the key (only possible through imports), a compatible type is preferred."""
        found = [
            self._entities[entity_id]
            for entity_id, keys in self._keys.items()
            if (key in keys if aliases else self._name_keys[entity_id] == key)
        ]
        compatible = [e for e in found if types_compatible(e.type, candidate.type)]
        return next(iter(compatible or found), None)

    def _fuzzy(self, key: str, candidate: CandidateEntity) -> tuple[Entity, float] | None:
        choices = [(k, entity_id) for entity_id, keys in self._keys.items() for k in keys]
        hits = process.extract(
            key,
            [choice for choice, _ in choices],
            scorer=fuzz.token_set_ratio,
            score_cutoff=self._config.fuzzy_threshold,
            limit=None,
        )
        best: tuple[float, float, Entity] | None = None
        for choice, score, index in hits:
            entity = self._entities[choices[index][1]]
            if not self._compatible(entity, candidate, key, choice) or weakly_contained(
                key, choice
            ):
                continue
            # Token-set ratio ties at 100 for any subset ("atlas" in "atlas api"); the
            # plain ratio then prefers the closest spelling.
            rank = (score, fuzz.ratio(key, choice), entity)
            if best is None or rank[:2] > best[:2]:
                best = rank
        return (best[2], best[0]) if best else None

    def _nearest_vectors(self, candidate: CandidateEntity, key: str) -> list[tuple[Entity, float]]:
        """Compatible entities by name-vector cosine, best first."""
        vector = self.name_vector(candidate.name)
        scored = {
            hit.entity.id: hit.score
            for hit in self._store.search_entities(vector, VECTOR_CANDIDATES)
            if hit.entity.id in self._entities
        }
        for entity_id, other in self._unstored.items():
            scored[entity_id] = float(np.dot(vector, other))
        ranked = [
            (self._entities[entity_id], score)
            for entity_id, score in scored.items()
            if self._compatible(
                self._entities[entity_id],
                candidate,
                key,
                self._name_keys[entity_id],
            )
        ]
        return sorted(ranked, key=lambda pair: -pair[1])

    def _ask(
        self, judge: EntityJudge, candidate: CandidateEntity, key: str, nearest: list[Entity]
    ) -> Entity | None:
        """Show the judge the closest compatible entities by spelling and by meaning."""
        spelled = process.extract(
            key,
            {entity_id: " ".join(keys) for entity_id, keys in self._keys.items()},
            scorer=fuzz.token_set_ratio,
            limit=JUDGE_SHORTLIST,
        )
        shortlist: dict[str, Entity] = {e.id: e for e in nearest[:JUDGE_SHORTLIST]}
        for _, _, entity_id in spelled:
            entity = self._entities[entity_id]
            if self._compatible(entity, candidate, key, self._name_keys[entity.id]):
                shortlist.setdefault(entity.id, entity)
        if not shortlist:
            return None
        answer = judge(candidate.name, list(shortlist.values()))
        if answer is None:
            return None
        if answer in shortlist:
            return shortlist[answer]
        named = normalise_name(answer)
        return next((e for e in shortlist.values() if normalise_name(e.name) == named), None)
