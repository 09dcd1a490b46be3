"""One contract, two implementations: every test runs against `LocalEngine` in this
process and against `RemoteEngine` talking to a real `cortex-tui serve` subprocess."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cortex_tui.config import RecallWeights
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import AmbiguousIdError, InvalidInputError, NotFoundError
from cortex_tui.models import (
    ConflictStatus,
    EntityType,
    MemoryDraft,
    MemoryType,
    Scope,
    WriteAction,
)
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.conftest import make_engine


@pytest.fixture(params=["local", "remote"])
def any_engine(
    request: pytest.FixtureRequest, tmp_path: Path, hashing_embedder: Embedder
) -> Iterator[Engine]:
    if request.param == "local":
        local = make_engine(tmp_path / "local-home", hashing_embedder)
        yield local
        local.close()
    else:
        yield request.getfixturevalue("remote")


def remember(engine: Engine, content: str, **fields: object) -> str:
    return engine.remember(MemoryDraft(content=content, **fields)).memory.id  # type: ignore[arg-type]


def test_remember_get_list_and_prefix_ids(any_engine: Engine) -> None:
    first = remember(any_engine, "The billing service is written in Go", project="billing")
    remember(any_engine, "Deploys happen on Tuesdays", type=MemoryType.RULE)
    assert any_engine.get(first[:8]).content == "The billing service is written in Go"
    assert any_engine.resolve_id(first[:8]) == first
    page = any_engine.list_memories(MemoryFilter(project="billing", project_only=True))
    assert [m.id for m in page.memories] == [first]
    assert any_engine.list_memories(MemoryFilter(), limit=1).total == 2
    with pytest.raises(NotFoundError):
        any_engine.get("ffffffff")
    with pytest.raises(InvalidInputError):
        any_engine.get("ab")


def test_ambiguous_prefix_is_the_same_error_class(any_engine: Engine) -> None:
    ids = [remember(any_engine, f"Distinct fact number {i} about topic {i * 7}") for i in range(40)]
    shared = next(
        a[:1] for a in ids for b in ids if a != b and a[:1] == b[:1]
    )  # 40 ids over 16 hex digits: some share a first character
    with pytest.raises((AmbiguousIdError, InvalidInputError)):
        any_engine.get(shared)


def test_recall_carries_breakdowns_and_explain_finds_outsiders(any_engine: Engine) -> None:
    target = remember(any_engine, "Atlas stores its data in PostgreSQL 16")
    remember(any_engine, "The frontend uses React and Vite")
    response = any_engine.recall(RecallRequest(query="which database does Atlas use", limit=1))
    top = response.results[0]
    assert top.memory.id == target
    parts = sum(s.contribution for s in top.breakdown.signals.values())
    assert parts * top.breakdown.supersession_penalty * top.breakdown.conflict_penalty == (
        pytest.approx(top.score, abs=1e-6)
    )
    assert "PostgreSQL" in response.context
    other = any_engine.list_memories(MemoryFilter(text="React")).memories[0]
    explanation = any_engine.explain(RecallRequest(query="Atlas database", limit=1), other.id)
    assert explanation.memory.id == other.id


def test_update_history_restore_forget_undo(any_engine: Engine) -> None:
    first = remember(any_engine, "The API listens on port 8080")
    newer = any_engine.update(first, content="The API listens on port 9090")
    chain = any_engine.history(newer.id)
    assert [m.content for m in chain] == [
        "The API listens on port 8080",
        "The API listens on port 9090",
    ]
    assert chain[0].valid_to is not None and chain[0].superseded_by_id == newer.id
    restored = any_engine.curation.restore(first)
    assert restored.content == "The API listens on port 8080" and restored.valid_to is None
    assert len(any_engine.history(first)) == 3
    forgotten = any_engine.forget(restored.id)
    assert forgotten.status.value == "deleted"
    any_engine.curation.undo(1)
    assert any_engine.get(restored.id).status.value == "active"
    any_engine.forget(restored.id)
    assert any_engine.upkeep.purge() >= 1


def test_conflict_groups_resolve_merge_dismiss(any_engine: Engine) -> None:
    a = remember(any_engine, "Code freeze before a release starts on Wednesday.")
    result = any_engine.remember(
        MemoryDraft(content="Code freeze before a release starts on Thursday.")
    )
    assert result.action is WriteAction.CONFLICT
    assert "Wednesday → Thursday" in result.reason and result.judge == "rules"
    groups = any_engine.curation.conflicts()
    assert len(groups) == 1 and {m.id for m in groups[0].members} == {a, result.memory.id}
    why = next(m for m in groups[0].members if m.id == result.memory.id).decisions[-1]
    assert (why.action, why.reason, why.related_id) == (WriteAction.CONFLICT, result.reason, a)
    kept = any_engine.curation.resolve(groups[0].id, a)
    assert kept.id == a
    loser = any_engine.get(result.memory.id)
    assert loser.conflict_status is ConflictStatus.RESOLVED and loser.superseded_by_id == a
    assert any_engine.curation.conflicts() == []
    any_engine.curation.undo(1)
    group = any_engine.curation.conflicts()[0]
    merged = any_engine.curation.merge(group.id, "Code freeze starts on Wednesday or Thursday")
    assert merged.content == "Code freeze starts on Wednesday or Thursday"
    any_engine.curation.undo(1)
    dismissed = any_engine.curation.dismiss(any_engine.curation.conflicts()[0].id)
    assert {m.conflict_status for m in dismissed} == {ConflictStatus.DISMISSED}


def test_capture_and_entity_graph(any_engine: Engine) -> None:
    report = any_engine.capture(
        "User: who owns payments?\n\nAssistant: We decided that Priya Shah leads the "
        "Payments team, and Payments uses Stripe for card processing.",
        project="shop",
    )
    assert any(o.result for o in report.outcomes)
    matches = any_engine.graph.search("Payments")
    assert matches, "capture linked no entities"
    entity = matches[0].entity
    view = any_engine.graph.neighbourhood(entity.id, 2)
    assert view.center.id == entity.id and view.nodes
    aliased = any_engine.graph.add_alias(entity.id, "Payments squad")
    assert "Payments squad" in aliased.aliases
    renamed = any_engine.graph.rename(entity.id, "Payments / Billing")
    assert any_engine.graph.get(renamed.id).name == "Payments / Billing"
    page = any_engine.graph.list_entities(type=None, limit=50)
    assert page.total >= 2
    others = [e for e in page.entities if e.id != entity.id]
    survivor = any_engine.graph.merge(others[0].id, entity.id)
    assert survivor.id == entity.id
    assert others[0].id not in {e.id for e in any_engine.graph.list_entities(limit=100).entities}
    assert any_engine.graph.list_entities(type=EntityType.PERSON, limit=5).total >= 0


def test_profiles_lifecycle_stats_activity(any_engine: Engine) -> None:
    remember(any_engine, "Session note: try the flaky test again", scope=Scope.SESSION)
    weights = RecallWeights(type=0.5, recency=0.0)
    any_engine.save_weight_profile("precise", weights)
    assert any_engine.weight_profiles()["precise"] == weights
    assert "default" in any_engine.weight_profiles()
    ranked = any_engine.recall(RecallRequest(query="flaky test", profile="precise"))
    assert ranked.results[0].breakdown.signals["type"].weight == 0.5
    report = any_engine.upkeep.lifecycle(dry_run=True)
    assert report.dry_run
    stats = any_engine.overview.stats()
    assert stats.current == 1 and stats.by_scope == {"session": 1}
    days = any_engine.overview.activity(7)
    assert len(days) == 7 and sum(days.values()) == 1
    with pytest.raises(InvalidInputError):
        any_engine.save_weight_profile("bad name!", weights)


def test_export_import_round_trip(
    any_engine: Engine, tmp_path: Path, hashing_embedder: Embedder
) -> None:
    remember(any_engine, "Use ruff for linting", type=MemoryType.RULE, tags=["python"])
    lines = list(any_engine.export())
    assert len(lines) == 2  # header + the memory
    target = make_engine(tmp_path / "copy", hashing_embedder)
    try:
        report = target.upkeep.import_lines(lines)
        assert report.memories == 1
        assert target.list_memories(MemoryFilter()).memories[0].tags == ["python"]
    finally:
        target.close()
    assert any_engine.upkeep.import_lines(lines).memories == 1  # upsert by id: no duplicate
    assert any_engine.overview.stats().total == 1
    assert any_engine.upkeep.health()["ok"] is True


def test_the_overview_views_answer_the_same_through_both(any_engine: Engine) -> None:
    old = remember(any_engine, "The API listens on port 8443", project="atlas")
    new = any_engine.update(old, content="The API listens on port 9000").id
    remember(any_engine, "Kafka consumers alert on lag", tags=["kafka"], project="lighthouse")
    drawn = any_engine.overview.memory_map(query="which port does the API use", top_k=2)
    assert drawn.total == 2 and new in drawn.ids and old not in drawn.ids
    assert drawn.hits[0].id == new and drawn.query_x is not None
    assert old in any_engine.overview.memory_map(superseded=True).ids
    terms = {term.term: term for term in any_engine.overview.word_cloud(project="lighthouse").terms}
    assert terms["kafka"].count == 1 and terms["kafka"].kind == "tag"
    today = any_engine.now().date()
    days = any_engine.overview.timeline(7).days
    assert days[-1].day == today.isoformat()
    assert (days[-1].created, days[-1].superseded) == (3, 1)
    listed = any_engine.overview.day(today)
    assert {m.id for m in listed.superseded} == {old}
    assert any_engine.upkeep.vitals().memories == 3
    with pytest.raises(InvalidInputError):
        any_engine.overview.timeline(0)
