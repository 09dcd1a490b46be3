"""The multi-factor score: nine signals, each raw value × weight, then two penalties.

Kept as pure functions of a memory, its channel evidence and the clock so that the
score of any memory can be recomputed and explained exactly (the breakdown's
contributions sum to the weighted score, and `final = weighted × penalties`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from cortex_tui.config import RecallConfig
from cortex_tui.models import (
    SIGNAL_NAMES,
    ChannelHit,
    ConflictStatus,
    Memory,
    Scope,
    ScoreBreakdown,
    SignalScore,
)

_WORD = re.compile(r"[\w][\w.+#/-]*", re.UNICODE)


@dataclass(slots=True)
class Evidence:
    """What the retrieval channels learned about one candidate."""

    cosine: float
    relevance: float
    lexical_score: float | None = None
    dense: ChannelHit | None = None
    lexical: ChannelHit | None = None
    graph: ChannelHit | None = None
    graph_hops: int | None = None


@dataclass(frozen=True, slots=True)
class QueryContext:
    """Per-query facts every candidate is scored against."""

    words: frozenset[str]
    text: str
    project: str | None
    now: datetime


def query_context(query: str, project: str | None, now: datetime) -> QueryContext:
    lowered = query.casefold()
    words = {w.strip(".-/") for w in _WORD.findall(lowered)}
    return QueryContext(
        words=frozenset(w for w in words if w), text=lowered, project=project, now=now
    )


def recency(memory: Memory, now: datetime, half_life_hours: float) -> float:
    seen = memory.last_accessed or memory.created_at
    hours = max(0.0, (now - seen).total_seconds() / 3600.0)
    return math.exp(-math.log(2) * hours / half_life_hours)


def frequency(access_count: int, divisor: float) -> float:
    return min(1.0, math.log2(1 + access_count) / divisor)


def reinforcement(reinforced_count: int, divisor: float) -> float:
    return min(1.0, math.log2(1 + reinforced_count) / divisor)


@dataclass(frozen=True, slots=True)
class Multipliers:
    """Type and scope multipliers divided by their largest value, computed once a query."""

    type: dict[str, float]
    scope: dict[str, float]

    @classmethod
    def of(cls, config: RecallConfig) -> Multipliers:
        types = config.type_multipliers.model_dump()
        scopes = config.scope_multipliers.model_dump()
        top_type, top_scope = max(types.values()), max(scopes.values())
        return cls(
            type={name: value / top_type for name, value in types.items()},
            scope={name: value / top_scope for name, value in scopes.items()},
        )


def type_signal(memory: Memory, multipliers: Multipliers) -> float:
    return multipliers.type[memory.type.value]


def scope_signal(memory: Memory, project: str | None, multipliers: Multipliers) -> float:
    if memory.scope is Scope.PROJECT:
        matches = bool(project) and memory.project == project
        return multipliers.scope["project_match" if matches else "project_other"]
    return multipliers.scope[memory.scope.value]


def confidence_signal(confidence: float, config: RecallConfig) -> float:
    return config.unknown_confidence if confidence < config.unknown_confidence_below else confidence


def tag_affinity(tags: list[str], ctx: QueryContext) -> float:
    """Share of the memory's tags that the query mentions (a multi-word tag as a phrase)."""
    if not tags:
        return 0.0
    hits = 0
    for tag in tags:
        t = tag.casefold().strip()
        if t in ctx.words or (len(t) > 2 and any(sep in t for sep in " -_") and t in ctx.text):
            hits += 1
    return hits / len(tags)


def graph_proximity(hops: int | None) -> float:
    return 0.0 if not hops else 1.0 / hops


@dataclass(slots=True)
class Score:
    """A candidate's score as plain floats: cheap enough to compute for every candidate.

    Only the results a caller receives are turned into a validated `ScoreBreakdown`.
    """

    raw: dict[str, float]
    weights: dict[str, float]
    weighted: float
    supersession_penalty: float
    conflict_penalty: float

    @property
    def final(self) -> float:
        return self.weighted * self.supersession_penalty * self.conflict_penalty


def score(
    memory: Memory,
    evidence: Evidence,
    ctx: QueryContext,
    config: RecallConfig,
    weights: dict[str, float],
    *,
    successor_present: bool,
    multipliers: Multipliers | None = None,
) -> Score:
    tables = multipliers or Multipliers.of(config)
    raw = {
        "similarity": max(0.0, min(1.0, evidence.relevance)),
        "recency": recency(memory, ctx.now, config.recency_half_life_hours),
        "frequency": frequency(memory.access_count, config.frequency_log_divisor),
        "type": type_signal(memory, tables),
        "scope": scope_signal(memory, ctx.project, tables),
        "confidence": confidence_signal(memory.confidence, config),
        "reinforcement": reinforcement(memory.reinforced_count, config.reinforcement_log_divisor),
        "tag_affinity": tag_affinity(memory.tags, ctx),
        "graph_proximity": graph_proximity(evidence.graph_hops),
    }
    return Score(
        raw=raw,
        weights=weights,
        weighted=math.fsum(raw[name] * weights[name] for name in SIGNAL_NAMES),
        supersession_penalty=config.supersession_penalty if successor_present else 1.0,
        conflict_penalty=(
            config.conflict_penalty if memory.conflict_status is ConflictStatus.ACTIVE else 1.0
        ),
    )


def breakdown(result: Score, evidence: Evidence, fusion: str) -> ScoreBreakdown:
    """The explainable form of a score: contributions sum to `weighted` by construction."""
    signals = {
        name: SignalScore(
            raw=result.raw[name],
            weight=result.weights[name],
            contribution=result.raw[name] * result.weights[name],
        )
        for name in SIGNAL_NAMES
    }
    return ScoreBreakdown(
        signals=signals,
        weighted=result.weighted,
        supersession_penalty=result.supersession_penalty,
        conflict_penalty=result.conflict_penalty,
        final=result.final,
        cosine=evidence.cosine,
        lexical_score=evidence.lexical_score,
        dense=evidence.dense,
        lexical=evidence.lexical,
        graph=evidence.graph,
        graph_hops=evidence.graph_hops,
        fusion=fusion,
    )
