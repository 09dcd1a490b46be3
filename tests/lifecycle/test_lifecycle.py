"""The lifecycle pass on the real embedded store, against the frozen clock `NOW`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from cortex_tui.curation import journal
from cortex_tui.engine.local import LocalEngine
from cortex_tui.lifecycle import LifecycleReport, run_lifecycle
from cortex_tui.lifecycle.consolidate import NEIGHBOURS
from cortex_tui.models import ConflictStatus, Memory, MemoryDraft, MemoryStatus, MemoryType, Scope
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW

EVERYTHING = MemoryFilter(current_only=False, statuses=None)
LINT = "Run make lint before opening a pull request in atlas."


def make(content: str, engine: LocalEngine, *, hours_ago: float = 0, **fields: Any) -> Memory:
    created = NOW - timedelta(hours=hours_ago)
    draft = MemoryDraft(content=content, created_at=created, type=MemoryType.FACT)
    memory = engine.materialise(draft).model_copy(update=fields)
    return Memory.model_validate(memory.model_dump())


def add(engine: LocalEngine, content: str, *, hours_ago: float = 0, **fields: Any) -> Memory:
    """A memory stored as given (no write path, so duplicates stay separate)."""
    memory = make(content, engine, hours_ago=hours_ago, **fields)
    engine.insert([memory])
    return memory


def run(engine: LocalEngine, *, dry_run: bool = False) -> LifecycleReport:
    return run_lifecycle(engine.store, engine.settings.lifecycle, engine.clock(), dry_run=dry_run)


def snapshot(engine: LocalEngine) -> tuple[list[Memory], list[str]]:
    memories = sorted(engine.store.iter_memories(EVERYTHING), key=lambda m: m.id)
    return memories, [e.id for e in engine.store.journal(limit=1000)]


def get(engine: LocalEngine, memory: Memory) -> Memory:
    return engine.store.get_memories([memory.id])[0]


def test_ttl_expiry_archives_what_outlived_its_ttl(engine: LocalEngine) -> None:
    gone = add(engine, "temporary deploy window A", scope=Scope.TTL, ttl_hours=720, hours_ago=721)
    short = add(engine, "temporary token B", scope=Scope.TTL, ttl_hours=1, hours_ago=2)
    fresh = add(engine, "temporary flag C", scope=Scope.TTL, ttl_hours=720, hours_ago=719)
    unset = add(engine, "imported ttl note D", scope=Scope.TTL, ttl_hours=None, hours_ago=800)
    lasting = add(engine, "permanent fact E", hours_ago=100_000)
    before = snapshot(engine)

    dry = run(engine, dry_run=True)
    assert sorted(dry.expired) == sorted([gone.id, short.id, unset.id])
    assert snapshot(engine) == before and dry.journal_ids == []

    report = run(engine)
    assert sorted(report.expired) == sorted(dry.expired)
    assert report.counts["ttl_expired"] == 3
    for memory in (gone, short, unset):
        assert get(engine, memory).status is MemoryStatus.ARCHIVED
        assert get(engine, memory).updated_at == NOW
    assert get(engine, fresh).status is get(engine, lasting).status is MemoryStatus.ACTIVE
    assert [e.action for e in engine.store.journal()] == ["lifecycle:ttl"]


def test_session_decay_uses_last_access_else_creation(engine: LocalEngine) -> None:
    idle = add(engine, "session note idle", scope=Scope.SESSION, hours_ago=30)
    used = add(
        engine,
        "session note used",
        scope=Scope.SESSION,
        hours_ago=30,
        last_accessed=NOW - timedelta(hours=2),
    )
    stale_use = add(
        engine,
        "session note stale",
        scope=Scope.SESSION,
        hours_ago=100,
        last_accessed=NOW - timedelta(hours=25),
    )
    young = add(engine, "session note young", scope=Scope.SESSION, hours_ago=23)
    before = snapshot(engine)

    assert sorted(run(engine, dry_run=True).decayed) == sorted([idle.id, stale_use.id])
    assert snapshot(engine) == before

    assert sorted(run(engine).decayed) == sorted([idle.id, stale_use.id])
    assert get(engine, idle).status is get(engine, stale_use).status is MemoryStatus.ARCHIVED
    assert get(engine, used).status is get(engine, young).status is MemoryStatus.ACTIVE


def test_consolidation_merges_near_duplicates_and_keeps_history(engine: LocalEngine) -> None:
    variant = LINT.replace("Run", "Always run")
    cosine = float(np.dot(*engine.embedder.embed([LINT, variant])))
    assert cosine >= engine.settings.lifecycle.consolidate_threshold
    atlas: dict[str, Any] = {"project": "atlas", "type": MemoryType.RULE}
    low = add(
        engine, LINT, confidence=0.8, access_count=3, reinforced_count=1, tags=["lint"], **atlas
    )
    newer = add(engine, variant, confidence=0.95, access_count=1, tags=["pr"], **atlas)
    oldest = add(engine, LINT, confidence=0.95, access_count=1, tags=["ci"], hours_ago=48, **atlas)
    # Same text, but another project, no project, another type or scope, or in a
    # conflict: kept apart.
    apart = [
        add(engine, LINT, scope=Scope.SESSION, confidence=1.0, **atlas),
        add(engine, LINT, project="zephyr", type=MemoryType.RULE),
        add(engine, LINT, type=MemoryType.RULE),
        add(engine, LINT, project="atlas", type=MemoryType.PROCEDURE),
        add(
            engine,
            LINT,
            conflict_group_id="g-active",
            conflict_status=ConflictStatus.ACTIVE,
            **atlas,
        ),
        add(
            engine,
            LINT,
            conflict_group_id="g-dismissed",
            conflict_status=ConflictStatus.DISMISSED,
            **atlas,
        ),
    ]
    vector = engine.store.get_vectors([oldest.id])[oldest.id]
    before = snapshot(engine)

    dry = run(engine, dry_run=True)
    assert snapshot(engine) == before
    report = run(engine)
    assert report.merges == dry.merges
    assert len(report.merges) == 1
    # Highest confidence wins; a tie goes to the most accessed, then the oldest.
    assert report.merges[0].survivor_id == oldest.id
    assert report.merges[0].merged_ids == [newer.id, low.id]

    survivor = get(engine, oldest)
    assert survivor.is_current and survivor.confidence == 0.95
    assert survivor.tags == ["ci", "pr", "lint"]
    assert survivor.access_count == 5
    assert survivor.reinforced_count == 1 + 2  # its own history plus one per folded member
    assert engine.store.get_vectors([oldest.id])[oldest.id] == vector  # nothing re-embedded
    for folded in (newer, low):
        stored = get(engine, folded)
        assert stored.valid_to == NOW and stored.superseded_by_id == oldest.id
        assert stored.status is MemoryStatus.ACTIVE  # history, not deletion
        assert [m.id for m in engine.history(folded.id)] == [folded.id, oldest.id]
    assert [m.id for m in engine.history(oldest.id)] == [newer.id, oldest.id]
    assert all(get(engine, m).is_current for m in apart)
    recalled = engine.recall(RecallRequest(query=LINT, project="atlas", update_access=False))
    ids = [r.memory.id for r in recalled.results]
    assert oldest.id in ids and newer.id not in ids and low.id not in ids


def test_consolidation_finds_clusters_larger_than_a_neighbour_page(engine: LocalEngine) -> None:
    copies = [make(LINT, engine, confidence=0.5 + i / 1000) for i in range(NEIGHBOURS * 2 + 5)]
    engine.insert(copies)
    report = run(engine)
    assert len(report.merges) == 1
    assert report.merges[0].survivor_id == copies[-1].id
    assert len(report.merges[0].merged_ids) == len(copies) - 1
    assert engine.store.count_memories(MemoryFilter()) == 1


def test_consolidation_leaves_what_a_person_resolved(engine: LocalEngine) -> None:
    kept = add(
        engine,
        "The release train leaves on Tuesday.",
        conflict_group_id="g1",
        conflict_status=ConflictStatus.ACTIVE,
    )
    add(
        engine,
        "The release train leaves on Friday.",
        conflict_group_id="g1",
        conflict_status=ConflictStatus.ACTIVE,
    )
    engine.curation.resolve("g1", kept.id)
    twin = add(engine, "The release train leaves on Tuesday.")
    report = run(engine)
    assert report.merges == []
    assert get(engine, kept).is_current and get(engine, twin).is_current


def _group(engine: LocalEngine, group: str, *members: tuple[str, float, float]) -> list[Memory]:
    """Members (content, confidence, hours ago) of an active conflict group."""
    return [
        add(
            engine,
            content,
            confidence=confidence,
            hours_ago=hours_ago,
            conflict_group_id=group,
            conflict_status=ConflictStatus.ACTIVE,
        )
        for content, confidence, hours_ago in members
    ]


def test_conflict_auto_resolution_keeps_the_most_confident(engine: LocalEngine) -> None:
    weak, strong = _group(
        engine, "g-conf", ("Freeze starts Wednesday", 0.6, 1), ("Freeze starts Thursday", 0.9, 5)
    )
    older, newer = _group(engine, "g-tie", ("Ops lead is Ana", 0.8, 10), ("Ops lead is Bo", 0.8, 1))
    before = snapshot(engine)
    dry = run(engine, dry_run=True)
    assert snapshot(engine) == before

    report = run(engine)
    assert report.resolutions == dry.resolutions
    decided = {r.group_id: (r.winner_id, r.loser_ids) for r in report.resolutions}
    assert decided == {"g-conf": (strong.id, [weak.id]), "g-tie": (newer.id, [older.id])}
    for winner, loser in ((strong, weak), (newer, older)):
        won, lost = get(engine, winner), get(engine, loser)
        assert won.is_current and won.conflict_status is ConflictStatus.RESOLVED
        assert won.supersedes_id == loser.id
        assert lost.valid_to == NOW and lost.superseded_by_id == winner.id
        assert lost.conflict_status is ConflictStatus.RESOLVED
    assert engine.curation.conflicts() == []


def test_conflict_auto_resolution_never_overrides_a_person(engine: LocalEngine) -> None:
    dismissed = _group(
        engine, "g-dismissed", ("Deploys on Monday", 0.6, 1), ("Deploys on Friday", 0.9, 2)
    )
    engine.curation.dismiss("g-dismissed")
    mixed = _group(engine, "g-mixed", ("Port is 8080", 0.6, 1), ("Port is 9090", 0.9, 2))
    engine.store.update_memories(
        [mixed[0].model_copy(update={"conflict_status": ConflictStatus.DISMISSED})]
    )
    # Resolved by a person, then re-activated (e.g. restored from an older export).
    reopened = _group(
        engine, "g-person", ("Staging DB is pg1", 0.6, 1), ("Staging DB is pg2", 0.9, 2)
    )
    engine.curation.resolve("g-person", reopened[0].id)
    engine.store.update_memories(
        [
            m.model_copy(
                update={
                    "conflict_status": ConflictStatus.ACTIVE,
                    "valid_to": None,
                    "superseded_by_id": None,
                }
            )
            for m in reopened
        ]
    )
    forgotten = _group(
        engine, "g-forgot", ("Cache TTL is 5m", 0.6, 1), ("Cache TTL is 10m", 0.9, 2)
    )
    engine.forget(forgotten[0].id)
    before = snapshot(engine)

    report = run(engine)
    assert report.resolutions == [] and report.journal_ids == []
    assert snapshot(engine) == before
    assert {m.id for m in dismissed} <= {m.id for m in engine.store.iter_memories(MemoryFilter())}


def _scenario(engine: LocalEngine) -> dict[str, Memory]:
    """One memory for every phase, plus a duplicate that expires first (its twin must
    not be merged into an archived memory, in a dry run either)."""
    weak, strong = _group(
        engine, "g", ("Freeze starts Wednesday", 0.6, 1), ("Freeze starts Thursday", 0.9, 5)
    )
    return {
        "ttl": add(engine, "temporary window", scope=Scope.TTL, ttl_hours=1, hours_ago=3),
        "session": add(engine, "session scratch", scope=Scope.SESSION, hours_ago=48),
        "dup_a": add(engine, LINT, confidence=0.9),
        "dup_b": add(engine, LINT, confidence=0.7),
        "expiring_twin": add(
            engine, "Tokens rotate weekly.", scope=Scope.TTL, ttl_hours=1, hours_ago=3
        ),
        "twin": add(engine, "Tokens rotate weekly.", confidence=0.5),
        "weak": weak,
        "strong": strong,
    }


def test_dry_run_writes_nothing_and_predicts_the_real_run(engine: LocalEngine) -> None:
    ms = _scenario(engine)
    before = snapshot(engine)
    dry = run(engine, dry_run=True)
    assert snapshot(engine) == before
    real = run(engine)
    assert LifecycleReport.model_validate_json(real.model_dump_json()) == real
    assert dry.dry_run and not real.dry_run
    assert dry.model_dump(exclude={"dry_run", "journal_ids"}) == real.model_dump(
        exclude={"dry_run", "journal_ids"}
    )
    assert real.counts == {
        "ttl_expired": 2,
        "session_decayed": 1,
        "consolidated": 1,
        "conflicts_resolved": 1,
        "archive_removed": 0,
    }
    assert get(engine, ms["twin"]).is_current
    assert [e.action for e in engine.store.journal()] == [
        "lifecycle:conflicts",
        "lifecycle:consolidate",
        "lifecycle:session",
        "lifecycle:ttl",
    ]
    again = run(engine)
    assert not again.changed and again.journal_ids == []


def test_undo_reverses_a_whole_run(engine: LocalEngine) -> None:
    _scenario(engine)
    journal.record(engine.store, "forget", NOW)  # an earlier action undo must not reach
    memories_before, journal_before = snapshot(engine)
    report = run(engine)
    assert len(report.journal_ids) == 4
    undone = engine.curation.undo(len(report.journal_ids))
    assert [e.id for e in undone] == report.journal_ids[::-1]
    assert snapshot(engine) == (memories_before, journal_before)
