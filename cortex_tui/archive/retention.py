"""What the archive keeps: turns younger than `archive.keep_days` (all when unset), and
at most `archive.max_messages` messages, the oldest removed first. Applied by
`lifecycle`, which backs the store up before it changes anything: a removed message is
gone from the store (the archive has no versions to go back to)."""

from __future__ import annotations

from datetime import datetime, timedelta

from cortex_tui.config import ArchiveConfig
from cortex_tui.store.base import MemoryFilter, Store

EVERYTHING = MemoryFilter(current_only=False, statuses=None)
_BATCH = 1024


def messages_past_keeping(store: Store, config: ArchiveConfig, now: datetime) -> list[str]:
    """The ids of the archived messages `config` no longer keeps, oldest first."""
    rows = sorted(
        (str(row["created_at"]), str(row["id"]))
        for row in store.archive.scan_memories(EVERYTHING, ("id", "created_at"))
    )
    cut = max(0, len(rows) - config.max_messages)
    if config.keep_days is not None:
        oldest_kept = now - timedelta(days=config.keep_days)
        cut = max(cut, sum(datetime.fromisoformat(said) < oldest_kept for said, _ in rows))
    return [record_id for _, record_id in rows[:cut]]


def remove_messages(store: Store, ids: list[str]) -> None:
    for start in range(0, len(ids), _BATCH):
        store.archive.delete_memories(ids[start : start + _BATCH])
