"""Properties of the score that must hold for every memory and weight profile.

Relevance leads: with the priors fixed the score never falls as relevance rises; the
breakdown adds up; a prior equal across the candidates changes no order; and no weight
profile the config accepts yields NaN or a negative score.
"""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_tui.config import MAX_PRIOR_WEIGHT, RecallConfig, RecallWeights
from cortex_tui.models import ConflictStatus, Memory, MemoryType, Scope
from cortex_tui.recall.fusion import Relevance
from cortex_tui.recall.scoring import Evidence, Score, breakdown, query_context, score
from cortex_tui.signals import PRIOR_NAMES

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
CONFIG = RecallConfig()
CTX = query_context("deploy the atlas release", "atlas", NOW)

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
weights_st = st.builds(
    RecallWeights,
    **{name: st.floats(min_value=0.0, max_value=MAX_PRIOR_WEIGHT) for name in PRIOR_NAMES},
)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    created = NOW - timedelta(hours=draw(st.floats(min_value=0, max_value=24 * 400)))
    scope = draw(st.sampled_from(Scope))
    return Memory(
        content="x",
        type=draw(st.sampled_from(MemoryType)),
        scope=scope,
        project=draw(st.sampled_from(["atlas", "harbor"])) if scope is Scope.PROJECT else None,
        tags=draw(st.lists(st.sampled_from(["deploy", "atlas", "db", "code-review"]), max_size=3)),
        confidence=draw(unit),
        access_count=draw(st.integers(min_value=0, max_value=10_000)),
        reinforced_count=draw(st.integers(min_value=0, max_value=100)),
        conflict_status=draw(st.sampled_from([ConflictStatus.NONE, ConflictStatus.ACTIVE])),
        created_at=created,
        updated_at=created,
        valid_from=created,
    )


def evaluate(
    memory: Memory,
    relevance: float,
    weights: RecallWeights,
    hops: int | None = None,
    successor: bool = False,
) -> Score:
    evidence = Evidence(cosine=relevance, relevance=Relevance(relevance), graph_hops=hops)
    return score(memory, evidence, CTX, CONFIG, weights.model_dump(), successor_present=successor)


hops_st = st.one_of(st.none(), st.integers(min_value=1, max_value=4))


@given(memories(), unit, unit, weights_st, hops_st, st.booleans())
def test_with_priors_fixed_the_score_rises_with_relevance(
    memory: Memory, a: float, b: float, weights: RecallWeights, hops: int | None, succ: bool
) -> None:
    low, high = sorted((a, b))
    assert evaluate(memory, low, weights, hops, succ).final <= (
        evaluate(memory, high, weights, hops, succ).final
    )


@given(memories(), unit, weights_st, hops_st, st.booleans())
def test_the_breakdown_adds_up_and_never_goes_negative_or_nan(
    memory: Memory, relevance: float, weights: RecallWeights, hops: int | None, succ: bool
) -> None:
    result = evaluate(memory, relevance, weights, hops, succ)
    b = breakdown(result, Evidence(cosine=relevance, relevance=Relevance(relevance)), "weighted")
    points = math.fsum(signal.contribution for signal in b.signals.values())
    assert math.isclose(points, b.adjusted, rel_tol=1e-12, abs_tol=1e-15)
    assert b.final == b.adjusted * b.supersession_penalty * b.conflict_penalty
    for name in PRIOR_NAMES:
        signal = b.signals[name]
        assert 1.0 <= signal.factor <= 1.0 + MAX_PRIOR_WEIGHT
        assert signal.contribution >= 0.0
    assert math.isfinite(b.final) and b.final >= 0.0
    assert b.adjusted <= relevance * (1.0 + MAX_PRIOR_WEIGHT) ** len(PRIOR_NAMES) + 1e-12


_SHARED = {
    "type": {"type": MemoryType.RULE},
    "scope": {"scope": Scope.PERMANENT, "project": None},
    "confidence": {"confidence": 0.8},
    "frequency": {"access_count": 7},
    "reinforcement": {"reinforced_count": 3},
    "tag_affinity": {"tags": ["deploy"]},
    "recency": {"created_at": NOW, "updated_at": NOW, "valid_from": NOW, "last_accessed": None},
}


@settings(max_examples=60)
@given(
    st.lists(st.tuples(memories(), unit), min_size=2, max_size=12),
    weights_st,
    st.sampled_from(sorted(_SHARED)),
    st.floats(min_value=0.0, max_value=MAX_PRIOR_WEIGHT),
)
def test_a_prior_equal_across_the_candidates_changes_no_order(
    candidates: list[tuple[Memory, float]], weights: RecallWeights, prior: str, weight: float
) -> None:
    same = [(m.model_copy(update=_SHARED[prior]), r) for m, r in candidates]
    without = weights.model_copy(update={prior: 0.0})
    with_prior = weights.model_copy(update={prior: weight})

    def order(profile: RecallWeights) -> list[int]:
        finals = [evaluate(m, r, profile).final for m, r in same]
        return sorted(range(len(same)), key=lambda i: (-finals[i], i))

    finals_without = [evaluate(m, r, without).final for m, r in same]
    ranked = order(with_prior)
    for above, below in itertools.pairwise(ranked):
        # Ties may form or part by rounding; a strict order never reverses.
        assert finals_without[above] >= finals_without[below] or math.isclose(
            finals_without[above], finals_without[below], rel_tol=1e-12
        )
