"""`run_lifecycle`: the maintenance pass, phase by phase, reversible and with a dry run.

Phases run in this order, each seeing what the earlier ones retire (in a dry run too,
where nothing is written, so its report is exactly what a real run would do):

1. TTL expiry: `ttl` memories past `created_at + ttl_hours` are archived;
2. session decay: `session` memories unused for `session_idle_hours` are archived;
3. consolidation: near-duplicates fold into one survivor (`consolidate.py`);
4. conflict auto-resolution of groups nobody has decided (`conflicts.py`).

Nothing is destroyed: archiving sets a status (`purge` removes archived memories later),
folding and resolving supersede, and each phase that changes memories first records a
journal entry with the memories as they were, so `undo` reverses it.

No embedder is needed: consolidation keeps the survivor's text and vector and finds
neighbours with the vectors already stored, so a run can never re-embed the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from cortex_tui.config import LifecycleConfig
from cortex_tui.curation import journal
from cortex_tui.lifecycle import conflicts, consolidate
from cortex_tui.lifecycle.report import LifecycleReport, Merge, Resolution
from cortex_tui.models import Memory, MemoryStatus, Scope
from cortex_tui.store.base import MemoryFilter, Store

# The engine's default for `ttl` memories without `ttl_hours` (engine/local.py's
# DEFAULT_TTL_HOURS, which `materialise` applies; only imports can lack it).
DEFAULT_TTL_HOURS = 720.0
WRITE_BATCH = 256


def run_lifecycle(
    store: Store, config: LifecycleConfig, now: datetime, *, dry_run: bool = False
) -> LifecycleReport:
    """Run every phase against `now`; with `dry_run` nothing at all is written."""
    writer = _Writer(store, now, dry_run)
    report = LifecycleReport(now=now, dry_run=dry_run)
    retired: set[str] = set()

    expired = [m for m in _current(store, Scope.TTL) if _ttl_end(m) < now]
    report.expired = writer.archive("ttl", expired)
    idle = timedelta(hours=config.session_idle_hours)
    decayed = [m for m in _current(store, Scope.SESSION) if _last_use(m) + idle < now]
    report.decayed = writer.archive("session", decayed)
    retired.update(report.expired, report.decayed)

    protected = conflicts.person_decided_groups(store)
    clusters = consolidate.find_clusters(
        store, config.consolidate_threshold, skip_ids=retired, protected_groups=protected
    )
    before = [m for c in clusters for m in (c.survivor, *c.members)]
    writer.apply("consolidate", before, [m for c in clusters for m in consolidate.merge(c, now)])
    report.merges = [
        Merge(survivor_id=c.survivor.id, merged_ids=[m.id for m in c.members]) for c in clusters
    ]
    retired.update(i for merge in report.merges for i in merge.merged_ids)

    decisions = conflicts.find_decisions(store, skip_ids=retired, protected_groups=protected)
    before = [m for d in decisions for m in (d.winner, *d.losers)]
    writer.apply("conflicts", before, [m for d in decisions for m in conflicts.resolve(d, now)])
    report.resolutions = [
        Resolution(group_id=d.group_id, winner_id=d.winner.id, loser_ids=[m.id for m in d.losers])
        for d in decisions
    ]
    report.journal_ids = writer.journal_ids
    return report


class _Writer:
    """Journal first, then the payload writes; both skipped in a dry run."""

    def __init__(self, store: Store, now: datetime, dry_run: bool) -> None:
        self._store = store
        self._now = now
        self._dry_run = dry_run
        self.journal_ids: list[str] = []

    def archive(self, phase: str, memories: Sequence[Memory]) -> list[str]:
        archived = [
            m.model_copy(update={"status": MemoryStatus.ARCHIVED, "updated_at": self._now})
            for m in memories
        ]
        self.apply(phase, memories, archived)
        return [m.id for m in memories]

    def apply(self, phase: str, before: Sequence[Memory], after: Sequence[Memory]) -> None:
        if self._dry_run or not after:
            return
        entry = journal.record(
            self._store,
            f"lifecycle:{phase}",
            self._now,
            before=before,
            note=f"{len(after)} memories changed",
        )
        self.journal_ids.append(entry.id)
        for start in range(0, len(after), WRITE_BATCH):
            self._store.update_memories(after[start : start + WRITE_BATCH])


def _current(store: Store, scope: Scope) -> list[Memory]:
    return list(store.iter_memories(MemoryFilter(scopes=[scope])))


def _ttl_end(memory: Memory) -> datetime:
    return memory.created_at + timedelta(hours=memory.ttl_hours or DEFAULT_TTL_HOURS)


def _last_use(memory: Memory) -> datetime:
    return memory.last_accessed or memory.created_at
