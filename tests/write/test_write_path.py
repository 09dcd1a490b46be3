"""The write path on the real embedded store with the real model: updates supersede,
contradictions open conflict groups, restatements fold, compatible facts stay apart."""

from __future__ import annotations

from datetime import timedelta

from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import ConflictStatus, MemoryDraft, WriteAction
from cortex_tui.recall.request import RecallRequest
from tests.conftest import NOW


def write(engine: LocalEngine, content: str, days_ago: float = 0, **kw: object):  # type: ignore[no-untyped-def]
    created = NOW - timedelta(days=days_ago)
    return engine.remember(MemoryDraft(content=content, created_at=created, **kw))  # type: ignore[arg-type]


def test_update_supersedes_and_is_never_recalled_by_default(onnx_engine: LocalEngine) -> None:
    old = write(onnx_engine, "Alice works at Initech as a backend engineer.", days_ago=30)
    new = write(onnx_engine, "Alice now works at Globex as a backend engineer.")
    assert new.action is WriteAction.SUPERSEDED
    assert new.memory.supersedes_id == old.memory.id
    retired = onnx_engine.get(old.memory.id)
    assert retired.superseded_by_id == new.memory.id and retired.valid_to == NOW
    found = onnx_engine.recall(RecallRequest(query="where does Alice work", update_access=False))
    assert [r.memory.id for r in found.results] == [new.memory.id]
    # A read-modify-write (access statistics) must not revive the old version.
    onnx_engine.recall(RecallRequest(query="Alice Initech"))
    assert onnx_engine.get(old.memory.id).valid_to == NOW
    history = onnx_engine.history(old.memory.id)
    assert [m.id for m in history] == [old.memory.id, new.memory.id]


def test_contradiction_without_change_signal_opens_a_conflict(onnx_engine: LocalEngine) -> None:
    a = write(onnx_engine, "Code freeze before a release starts on Wednesday.", days_ago=2)
    b = write(onnx_engine, "Code freeze before a release starts on Thursday.")
    assert b.action is WriteAction.CONFLICT
    first, second = onnx_engine.get(a.memory.id), onnx_engine.get(b.memory.id)
    assert first.conflict_group_id == second.conflict_group_id is not None
    assert first.conflict_status is second.conflict_status is ConflictStatus.ACTIVE
    assert first.contradicts_ids == [second.id] and second.contradicts_ids == [first.id]
    groups = onnx_engine.curation.conflicts()
    assert len(groups) == 1 and {m.id for m in groups[0].members} == {first.id, second.id}
    third = write(onnx_engine, "Code freeze before a release starts on Friday.")
    assert third.action is WriteAction.CONFLICT
    assert len(onnx_engine.curation.conflicts()[0].members) == 3


def test_restatement_folds_and_reinforces(onnx_engine: LocalEngine) -> None:
    a = write(
        onnx_engine,
        "Run the linter with `make lint` before opening a pull request.",
        confidence=0.8,
        tags=["lint"],
    )
    b = write(onnx_engine, "Before you open a pull request, run `make lint`.", tags=["pr"])
    assert b.action in (WriteAction.DUPLICATE, WriteAction.REINFORCED)
    assert b.memory.id == a.memory.id
    kept = onnx_engine.get(a.memory.id)
    assert kept.reinforced_count == 1
    assert abs(kept.confidence - 0.85) < 1e-9
    assert kept.tags == ["lint", "pr"]
    assert onnx_engine.overview.stats().current == 1


def test_similar_but_compatible_statements_stay_apart(onnx_engine: LocalEngine) -> None:
    a = write(onnx_engine, "The atlas web app is available in English and German.", project="atlas")
    b = write(onnx_engine, "The atlas mobile app is available in English only.", project="atlas")
    assert b.action is WriteAction.CREATED
    assert onnx_engine.get(a.memory.id).is_current and onnx_engine.get(b.memory.id).is_current


def test_write_path_respects_project_scope(onnx_engine: LocalEngine) -> None:
    write(onnx_engine, "The API is deployed on Heroku.", project="atlas", days_ago=10)
    other = write(
        onnx_engine, "We moved the API off Heroku; it is now deployed on Fly.io.", project="harbor"
    )
    assert other.action is WriteAction.CREATED


def test_curation_resolve_merge_dismiss_and_undo(onnx_engine: LocalEngine) -> None:
    def conflict() -> tuple[str, str, str]:
        a = write(onnx_engine, "The staging database is reset every night.", days_ago=3)
        b = write(onnx_engine, "The staging database is reset every Sunday.")
        assert b.action is WriteAction.CONFLICT
        group = onnx_engine.curation.conflicts()[0].id
        return group, a.memory.id, b.memory.id

    group, a, b = conflict()
    kept = onnx_engine.curation.resolve(group[:8], b[:8])
    loser = onnx_engine.get(a)
    assert kept.conflict_status is ConflictStatus.RESOLVED and kept.is_current
    assert loser.valid_to == NOW and loser.superseded_by_id == b
    assert onnx_engine.curation.conflicts() == []
    onnx_engine.curation.undo()
    assert onnx_engine.get(a).is_current
    assert onnx_engine.get(a).conflict_status is ConflictStatus.ACTIVE
    assert len(onnx_engine.curation.conflicts()) == 1

    merged = onnx_engine.curation.merge(
        group, "Staging is reset nightly and fully rebuilt on Sundays."
    )
    assert merged.is_current and {onnx_engine.get(x).superseded_by_id for x in (a, b)} == {
        merged.id
    }
    onnx_engine.curation.undo()
    assert onnx_engine.get(merged.id).status.value == "deleted"
    assert onnx_engine.get(a).is_current and onnx_engine.get(b).is_current

    dismissed = onnx_engine.curation.dismiss(group)
    assert {m.conflict_status for m in dismissed} == {ConflictStatus.DISMISSED}
    assert onnx_engine.curation.conflicts() == []
    onnx_engine.curation.undo()
    assert len(onnx_engine.curation.conflicts()) == 1


def test_restore_makes_an_old_version_current_as_a_new_version(onnx_engine: LocalEngine) -> None:
    old = write(onnx_engine, "harbor uses Python 3.10.", project="harbor", days_ago=40)
    new = write(onnx_engine, "harbor was upgraded to Python 3.12 last month.", project="harbor")
    assert new.action is WriteAction.SUPERSEDED
    restored = onnx_engine.curation.restore(old.memory.id)
    assert restored.content == old.memory.content and restored.id != old.memory.id
    assert restored.supersedes_id == new.memory.id
    chain = onnx_engine.history(old.memory.id)
    assert [m.id for m in chain] == [old.memory.id, new.memory.id, restored.id]
    assert chain[0].valid_to is not None  # the past is not rewritten
    onnx_engine.curation.undo()
    assert onnx_engine.get(new.memory.id).is_current


def test_a_later_valid_at_turns_a_contradiction_into_an_update(onnx_engine: LocalEngine) -> None:
    old = write(
        onnx_engine,
        "The production database for atlas is PostgreSQL 15.",
        project="atlas",
        days_ago=20,
    )
    new = onnx_engine.remember(
        MemoryDraft(
            content="The production database for atlas is PostgreSQL 16.",
            project="atlas",
            valid_from=NOW - timedelta(days=2),
        )
    )
    assert new.action is WriteAction.SUPERSEDED
    assert onnx_engine.get(old.memory.id).valid_to == NOW - timedelta(days=2)
