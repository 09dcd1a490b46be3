"""The score, signal by signal, and the breakdown's arithmetic."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from cortex_tui.config import MAX_PRIOR_WEIGHT, RecallConfig, RecallWeights
from cortex_tui.models import ConflictStatus, Memory, MemoryType, Scope, ScoreBreakdown
from cortex_tui.recall.fusion import Relevance
from cortex_tui.recall.scoring import (
    Evidence,
    breakdown,
    frequency,
    query_context,
    recency,
    reinforcement,
    score,
    tag_affinity,
)
from cortex_tui.signals import PRIOR_NAMES, SIGNAL_NAMES

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def mem(**overrides: object) -> Memory:
    fields: dict[str, object] = {
        "content": "x",
        "created_at": NOW,
        "updated_at": NOW,
        "valid_from": NOW,
    }
    fields.update(overrides)
    return Memory.model_validate(fields)


def explain(
    memory: Memory, query: str = "q", project: str | None = None, **kw: object
) -> ScoreBreakdown:
    hops = kw.get("hops")
    evidence = Evidence(
        cosine=0.6,
        relevance=Relevance(0.6, dense=0.6, lexical=0.0, lexical_weight=0.3),
        graph_hops=hops if isinstance(hops, int) else None,
    )
    result = score(
        memory,
        evidence,
        query_context(query, project, NOW),
        RecallConfig(),
        RecallWeights().model_dump(),
        successor_present=bool(kw.get("successor")),
    )
    return breakdown(result, evidence, "weighted")


def test_recency_halves_every_week() -> None:
    week_ago = mem(created_at=NOW - timedelta(hours=168))
    assert recency(week_ago, NOW, 168) == pytest.approx(0.5)
    touched = week_ago.model_copy(update={"last_accessed": NOW})
    assert recency(touched, NOW, 168) == pytest.approx(1.0)


def test_frequency_and_reinforcement_follow_the_log_formulas() -> None:
    assert frequency(0, 10) == 0
    assert frequency(7, 10) == pytest.approx(0.3)
    assert frequency(5000, 10) == 1.0
    assert reinforcement(3, 5) == pytest.approx(0.4)


def test_type_and_scope_are_normalised_by_the_largest_multiplier() -> None:
    b = explain(mem(type=MemoryType.RULE))
    assert b.signals["type"].raw == 1.0
    b = explain(mem(type=MemoryType.PREFERENCE))
    assert b.signals["type"].raw == pytest.approx(0.7 / 1.5)
    in_project = mem(scope=Scope.PROJECT, project="atlas")
    assert explain(in_project, project="atlas").signals["scope"].raw == 1.0
    assert explain(in_project, project="harbor").signals["scope"].raw == pytest.approx(1 / 1.5)


def test_unknown_confidence_counts_as_point_seven() -> None:
    assert explain(mem(confidence=0.0)).signals["confidence"].raw == 0.7
    assert explain(mem(confidence=0.95)).signals["confidence"].raw == 0.95


def test_tag_affinity_is_the_share_of_tags_the_query_mentions() -> None:
    ctx = query_context("How do we release atlas?", None, NOW)
    assert tag_affinity(["release", "git"], ctx) == 0.5
    assert tag_affinity([], ctx) == 0.0
    assert tag_affinity(["code-review"], query_context("our code-review rules", None, NOW)) == 1


def test_graph_proximity_is_one_over_hops() -> None:
    assert explain(mem(), hops=1).signals["graph_proximity"].raw == 1.0
    assert explain(mem(), hops=2).signals["graph_proximity"].raw == 0.5
    assert explain(mem()).signals["graph_proximity"].raw == 0.0


def test_priors_multiply_relevance_and_their_points_add_up_exactly() -> None:
    b = explain(mem(tags=["q"], access_count=3, reinforced_count=2), hops=2)
    assert set(b.signals) == set(SIGNAL_NAMES)
    relevance = b.signals["relevance"]
    assert relevance.raw == relevance.contribution == 0.6
    product = 0.6
    for name in PRIOR_NAMES:
        s = b.signals[name]
        assert s.factor == pytest.approx(1 + s.weight * s.raw)
        assert s.contribution >= 0
        product *= s.factor
    assert b.adjusted == pytest.approx(product, rel=1e-12)
    assert math.fsum(s.contribution for s in b.signals.values()) == pytest.approx(b.adjusted)
    assert b.final == b.adjusted


def test_a_factor_of_one_adds_no_points_and_shares_follow_the_log_factors() -> None:
    b = explain(mem(tags=["q"], access_count=3), hops=1)
    assert b.signals["reinforcement"].raw == 0
    assert b.signals["reinforcement"].contribution == 0
    tag, graph = b.signals["tag_affinity"], b.signals["graph_proximity"]
    assert tag.factor == graph.factor  # both signals are 1 and both weights 0.05
    assert tag.contribution == pytest.approx(graph.contribution)


def test_a_prior_lifts_a_score_by_at_most_its_weight() -> None:
    rule = explain(mem(type=MemoryType.RULE)).signals["type"]
    assert rule.factor == pytest.approx(1 + RecallWeights().type)
    with pytest.raises(ValueError):
        RecallWeights(recency=MAX_PRIOR_WEIGHT + 0.01)


def test_the_breakdown_states_how_relevance_was_fused() -> None:
    b = explain(mem())
    assert (b.dense_scaled, b.lexical_scaled, b.lexical_weight) == (0.6, 0.0, 0.3)


def test_penalties_multiply_the_adjusted_score() -> None:
    b = explain(mem(conflict_status=ConflictStatus.ACTIVE), successor=True)
    assert b.conflict_penalty == 0.8
    assert b.supersession_penalty == 0.3
    assert b.final == pytest.approx(b.adjusted * 0.8 * 0.3)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("rules for merging code in atlas", {MemoryType.RULE}),
        ("what is the runbook for a failed backfill", {MemoryType.PROCEDURE}),
        ("which editor does Priya prefer", {MemoryType.PREFERENCE}),
        ("the incident on the orders table", {MemoryType.EPISODE}),
        ("our policies and preferences on reviews", {MemoryType.RULE, MemoryType.PREFERENCE}),
        # Phrasing alone names nothing: "how do I" asks for facts and preferences too.
        ("how do I ship a new version of atlas", set()),
        ("ruler and preferential voting", set()),
    ],
)
def test_a_query_names_a_type_only_with_the_kinds_own_words(
    query: str, named: set[MemoryType]
) -> None:
    assert query_context(query, None, NOW).named_types == named
    assert query_context(query, None, NOW, type_cues=False).named_types == frozenset()


def test_a_named_type_sets_the_type_prior_to_one_or_zero() -> None:
    asked = "the rules for merging"
    assert explain(mem(type=MemoryType.RULE), asked).signals["type"].raw == 1.0
    assert explain(mem(type=MemoryType.PROCEDURE), asked).signals["type"].raw == 0.0
    assert explain(mem(type=MemoryType.RULE), asked).query_types == [MemoryType.RULE]
