"""The data model: exact JSON round trips, UTC everywhere, bad values rejected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from cortex_tui.models import (
    ChannelHit,
    ConflictStatus,
    Memory,
    MemoryType,
    Relation,
    Scope,
    ScoreBreakdown,
)

T0 = datetime(2026, 5, 1, 9, 30, 15, 123456, tzinfo=UTC)


def make(**overrides: object) -> Memory:
    fields: dict[str, object] = {
        "content": "x",
        "created_at": T0,
        "updated_at": T0,
        "valid_from": T0,
    }
    fields.update(overrides)
    return Memory.model_validate(fields)


def test_memory_json_round_trip_is_exact() -> None:
    memory = make(
        content="Use the `[tool.ruff]` table\nin pyproject.toml",
        type=MemoryType.RULE,
        scope=Scope.PROJECT,
        project="atlas",
        tags=["lint", "python"],
        valid_to=T0 + timedelta(days=3),
        superseded_by_id="b" * 8,
        conflict_group_id="g1",
        conflict_status=ConflictStatus.ACTIVE,
        contradicts_ids=["c1"],
        entity_ids=["e1", "e2"],
        episode_start=T0,
        episode_end=T0 + timedelta(hours=1),
        ttl_hours=12.5,
    )
    again = Memory.model_validate_json(memory.model_dump_json())
    assert again == memory
    assert again.valid_to == T0 + timedelta(days=3)


def test_times_are_normalised_to_utc() -> None:
    berlin = timezone(timedelta(hours=2))
    memory = make(created_at=datetime(2026, 5, 1, 11, 30, tzinfo=berlin))
    assert memory.created_at == datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
    assert memory.created_at.utcoffset() == timedelta(0)


def test_naive_times_are_rejected() -> None:
    with pytest.raises(ValidationError):
        make(created_at=datetime(2026, 5, 1, 9, 30))


@pytest.mark.parametrize(
    "bad", [{"content": ""}, {"type": "opinion"}, {"confidence": 1.5}, {"surprise": 1}]
)
def test_invalid_fields_are_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        make(**bad)


def test_current_version_requires_open_validity_and_active_status() -> None:
    assert make().is_current
    assert not make(valid_to=T0).is_current
    assert not make(status="deleted").is_current


def test_relation_round_trip() -> None:
    relation = Relation(subject_id="a", predicate="leads", object_id="b", valid_from=T0)
    assert Relation.model_validate_json(relation.model_dump_json()) == relation


def test_a_breakdown_recorded_with_one_field_a_channel_reads_keyed_by_name() -> None:
    """The given log keeps breakdowns written before the channels were keyed by name."""
    old = {
        "signals": {},
        "adjusted": 0.5,
        "final": 0.5,
        "cosine": 0.5,
        "dense": {"rank": 2, "score": 0.61},
        "graph": {"rank": 1, "score": 1.0},
    }
    read = ScoreBreakdown.model_validate(old)
    assert list(read.channels) == ["dense", "lexical", "graph"]
    assert read.channels["dense"] == ChannelHit(rank=2, score=0.61)
    assert read.channels["lexical"] is None
    assert read.channels["graph"] == ChannelHit(rank=1, score=1.0)
    assert "dense" not in read.model_dump()
