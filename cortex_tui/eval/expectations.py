"""Checks of a dataset's `expect` block against the store after ingestion."""

from __future__ import annotations

from cortex_tui.engine.local import LocalEngine
from cortex_tui.eval.dataset import Dataset
from cortex_tui.eval.report import FailedExpectation
from cortex_tui.models import ConflictStatus, Memory


def check_expectations(
    engine: LocalEngine, dataset: Dataset, labels: dict[str, str]
) -> tuple[list[FailedExpectation], int, int]:
    """(failures, passed, total)."""
    memories = {m.id: m for m in engine.store.get_memories(list(set(labels.values())))}

    def get(label: str) -> Memory:
        return memories[labels[label]]

    e = dataset.expect
    checks: list[tuple[str, list[str], str | None]] = []
    for old, new in e.superseded:
        checks.append(("superseded", [old, new], _superseded(get(old), get(new))))
    for group in e.conflicts:
        checks.append(("conflicts", list(group), _conflict([get(label) for label in group])))
    for kept, folded in e.duplicates:
        same = labels[kept] == labels[folded]
        checks.append(
            (
                "duplicates",
                [kept, folded],
                None if same else "stored as two memories, not folded into one",
            )
        )
    for label in e.reinforced:
        m = get(label)
        checks.append(
            ("reinforced", [label], None if m.reinforced_count > 0 else "reinforcement count is 0")
        )
    for a, b in e.independent:
        checks.append(("independent", [a, b], _independent(get(a), get(b))))
    failed = [FailedExpectation(kind=k, labels=ls, why=why) for k, ls, why in checks if why]
    return failed, len(checks) - len(failed), len(checks)


def _superseded(old: Memory, new: Memory) -> str | None:
    if old.id == new.id:
        return "both labels map to one memory (folded as a duplicate/reinforcement)"
    if new.valid_to is not None:
        return "the newer memory is not the current version"
    if old.superseded_by_id != new.id or new.supersedes_id != old.id:
        if old.conflict_group_id and old.conflict_group_id == new.conflict_group_id:
            return "opened a conflict group instead of superseding"
        return "no version link between them (stored as independent memories)"
    if old.valid_to is None:
        return "the old memory is still current (valid_to not set)"
    return None


def _conflict(group: list[Memory]) -> str | None:
    ids = {m.id for m in group}
    if len(ids) < len(group):
        return "labels were folded into one memory"
    groups = {m.conflict_group_id for m in group}
    if None in groups or len(groups) != 1:
        return "not in one conflict group"
    if any(m.conflict_status is not ConflictStatus.ACTIVE for m in group):
        return "conflict group is not awaiting resolution"
    return None


def _independent(a: Memory, b: Memory) -> str | None:
    if a.id == b.id:
        return "folded into one memory"
    if not (a.is_current and b.is_current):
        return "one of them is no longer current"
    if a.supersedes_id == b.id or b.supersedes_id == a.id:
        return "one supersedes the other"
    if a.conflict_group_id and a.conflict_group_id == b.conflict_group_id:
        return "placed in one conflict group"
    return None
