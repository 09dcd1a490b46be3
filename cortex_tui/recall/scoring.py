"""The score: relevance, refined by ten bounded prior factors, then two penalties.

    adjusted = relevance × Π (1 + weight_p × signal_p)      signal_p ∈ [0, 1]
    final    = adjusted × supersession_penalty × conflict_penalty

Relevance (the fused channels) leads; a prior can lift a memory by at most its weight
(≤ 0.5) as a share of that memory's relevance, and a prior equal across the candidates
multiplies them all alike, so it changes no order. Measured on LoCoMo's development
conversations (docs/measurements.md, "Recall on LoCoMo"), the additive nine-signal sum this replaces
ranked below relevance alone: eight priors with 55% of the weight reordered by noise
among memories of one type and a similar age.

The breakdown states each prior's factor and, so that the contributions add up, its
share of what the priors add together: `adjusted − relevance` split in proportion to
the logarithms of the factors (the logarithmic-mean split: exact up to float rounding
and independent of order). `adjusted` itself is the product, so a factor common to all
candidates can never reorder them, not even by rounding. Pure functions of a memory, its
channel evidence and the clock, so any score can be recomputed and explained.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from cortex_tui.config import RecallConfig
from cortex_tui.models import (
    ASKER_ROLES,
    ChannelHit,
    ConflictStatus,
    GateEvidence,
    Memory,
    MemoryType,
    Scope,
    ScoreBreakdown,
    SignalScore,
)
from cortex_tui.recall.fusion import Relevance
from cortex_tui.recall.periods import Period, period_signal, query_period
from cortex_tui.recall.type_cues import named_types
from cortex_tui.signals import PRIOR_NAMES

_WORD = re.compile(r"[\w][\w.+#/-]*", re.UNICODE)


@dataclass(slots=True)
class Evidence:
    """What the retrieval channels learned about one candidate."""

    cosine: float
    relevance: Relevance
    context_cosine: float | None = None
    context_read: float | None = None
    """The weighted context cosine, when the dense channel read it rather than `cosine`."""
    part_cosine: float | None = None
    part_read: float | None = None
    """The weighted cosine of the best sentence, when the dense channel read it."""
    matched_sentence: str | None = None
    lexical_score: float | None = None
    hits: dict[str, ChannelHit | None] = field(default_factory=dict)
    """Each channel that ran, in the channels' order: where it ranked the candidate, or
    None when it did not find it."""
    graph_hops: int | None = None
    graph_speaker: str | None = None
    """Who said the memory, when the query names them (graph hop 1 through its speaker)."""

    @property
    def read_cosine(self) -> float:
        """The cosine the dense channel read: the context's or a sentence's when it
        matched better."""
        if self.part_read is not None:
            return self.part_read
        return self.cosine if self.context_read is None else self.context_read


@dataclass(frozen=True, slots=True)
class QueryContext:
    """Per-query facts every candidate is scored against."""

    words: frozenset[str]
    text: str
    project: str | None
    now: datetime
    named_types: frozenset[MemoryType] = frozenset()
    """Memory types the query names; when any, the type prior favours them alone."""
    period: Period | None = None
    """The period the query names; when one, the period prior favours memories of it."""


def query_context(
    query: str, project: str | None, now: datetime, *, type_cues: bool = True
) -> QueryContext:
    lowered = query.casefold()
    words = frozenset(w for w in (w.strip(".-/") for w in _WORD.findall(lowered)) if w)
    return QueryContext(
        words=words,
        text=lowered,
        project=project,
        now=now,
        named_types=named_types(words) if type_cues else frozenset(),
        period=query_period(query, now),
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


def type_signal(memory: Memory, multipliers: Multipliers, named: frozenset[MemoryType]) -> float:
    """1 for a type the query names and 0 for the others; without one, the configured
    multiplier divided by the largest."""
    if named:
        return float(memory.type in named)
    return multipliers.type[memory.type.value]


def scope_signal(memory: Memory, project: str | None, multipliers: Multipliers) -> float:
    """A team memory of a project counts as one of the member's own project memories."""
    if memory.scope is Scope.PROJECT or (memory.scope is Scope.TEAM and memory.project):
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


def period_prior(memory: Memory, period: Period | None) -> float:
    """How well the memory's date (its episode's start, else when it was made) falls in
    the period the query names; 0 for every memory when it names none."""
    if period is None:
        return 0.0
    return period_signal(memory.episode_start or memory.created_at, period)


@dataclass(slots=True)
class Score:
    """A candidate's score as plain floats: cheap enough to compute for every candidate.

    Only the results a caller receives are turned into a validated `ScoreBreakdown`,
    and only they need each prior's share of the score (`prior_contributions`).
    """

    relevance: float
    raw: dict[str, float]
    weights: dict[str, float]
    factors: dict[str, float]
    adjusted: float
    supersession_penalty: float
    conflict_penalty: float
    named_types: frozenset[MemoryType] = frozenset()
    period: Period | None = None

    @property
    def final(self) -> float:
        return self.adjusted * self.supersession_penalty * self.conflict_penalty


def prior_signals(
    memory: Memory,
    evidence: Evidence,
    ctx: QueryContext,
    config: RecallConfig,
    multipliers: Multipliers,
) -> dict[str, float]:
    """The ten priors' raw values, each in [0, 1]."""
    return {
        "recency": recency(memory, ctx.now, config.recency_half_life_hours),
        "frequency": frequency(memory.access_count, config.frequency_log_divisor),
        "type": type_signal(memory, multipliers, ctx.named_types),
        "scope": scope_signal(memory, ctx.project, multipliers),
        "confidence": confidence_signal(memory.confidence, config),
        "reinforcement": reinforcement(memory.reinforced_count, config.reinforcement_log_divisor),
        "tag_affinity": tag_affinity(memory.tags, ctx),
        "graph_proximity": graph_proximity(evidence.graph_hops),
        "period": period_prior(memory, ctx.period),
        "asker": float(evidence.graph_speaker in ASKER_ROLES),
    }


def prior_contributions(relevance: float, factors: dict[str, float]) -> dict[str, float]:
    """Each factor's share of `relevance × (Π factors − 1)`, split by log factor.

    With F = Π f and L(F) = (F − 1) / ln F (1 when F = 1), factor f adds
    relevance × L(F) × ln f: the shares sum to relevance × (F − 1) whatever the order,
    and a factor of 1 adds nothing.
    """
    logs = {name: math.log(factor) for name, factor in factors.items()}
    total = math.fsum(logs.values())
    growth = math.expm1(total)
    mean = growth / total if total > 1e-12 else 1.0 + total / 2.0
    return {name: relevance * mean * log for name, log in logs.items()}


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
    relevance = max(0.0, min(1.0, evidence.relevance.value))
    raw = prior_signals(memory, evidence, ctx, config, multipliers or Multipliers.of(config))
    factors = {name: 1.0 + weights[name] * raw[name] for name in PRIOR_NAMES}
    return Score(
        relevance=relevance,
        raw=raw,
        weights=weights,
        factors=factors,
        adjusted=relevance * math.prod(factors.values()),
        supersession_penalty=config.supersession_penalty if successor_present else 1.0,
        conflict_penalty=(
            config.conflict_penalty if memory.conflict_status is ConflictStatus.ACTIVE else 1.0
        ),
        named_types=ctx.named_types,
        period=ctx.period,
    )


def breakdown(
    result: Score, evidence: Evidence, fusion: str, gate: GateEvidence | None = None
) -> ScoreBreakdown:
    """The explainable form of a score: contributions sum to `adjusted` by construction."""
    signals = {
        "relevance": SignalScore(raw=result.relevance, weight=1.0, contribution=result.relevance)
    }
    contributions = prior_contributions(result.relevance, result.factors)
    for name in PRIOR_NAMES:
        signals[name] = SignalScore(
            raw=result.raw[name],
            weight=result.weights[name],
            factor=result.factors[name],
            contribution=contributions[name],
        )
    fused = evidence.relevance
    return ScoreBreakdown(
        signals=signals,
        adjusted=result.adjusted,
        supersession_penalty=result.supersession_penalty,
        conflict_penalty=result.conflict_penalty,
        final=result.final,
        cosine=evidence.cosine,
        context_cosine=evidence.context_cosine,
        matched_context=evidence.context_read is not None,
        part_cosine=evidence.part_cosine,
        matched_part=evidence.part_read is not None,
        matched_sentence=evidence.matched_sentence,
        lexical_score=evidence.lexical_score,
        dense_scaled=fused.dense,
        lexical_scaled=fused.lexical,
        lexical_bm25_scaled=fused.bm25,
        lexical_coverage=fused.coverage,
        lexical_weight=fused.lexical_weight,
        channels=evidence.hits,
        graph_hops=evidence.graph_hops,
        graph_speaker=evidence.graph_speaker,
        fusion=fusion,
        query_types=sorted(result.named_types),
        query_period=None if result.period is None else result.period.describe(),
        gate=gate,
    )
