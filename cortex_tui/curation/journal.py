"""The curation journal: every curation action records how to undo itself.

An entry keeps the memories an action changed *as they were before*, and the ids of the
memories it created. Undo puts the old payloads back and marks the created memories
deleted, newest action first. The entry is written before the action's own writes, so a
crash in between leaves an entry whose undo is harmless (it restores what is already
there).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from cortex_tui.errors import InvalidInputError
from cortex_tui.models import Memory, MemoryStatus, new_id
from cortex_tui.store.base import JournalEntry, Store


def record(
    store: Store,
    action: str,
    now: datetime,
    *,
    before: Sequence[Memory] = (),
    created: Sequence[str] = (),
    note: str = "",
) -> JournalEntry:
    entry = JournalEntry(
        id=new_id(),
        created_at=now,
        action=action,
        payload={
            "before": [m.model_dump(mode="json") for m in before],
            "created": list(created),
            "note": note,
        },
    )
    store.append_journal(entry)
    return entry


def undo(store: Store, now: datetime, count: int = 1) -> list[JournalEntry]:
    """Undo the last `count` curation actions; returns the entries undone, newest first."""
    if count < 1:
        raise InvalidInputError("undo needs a count of at least 1")
    entries = store.journal(limit=count)
    if not entries:
        raise InvalidInputError("nothing to undo: the curation journal is empty")
    for entry in entries:
        _undo_one(store, entry, now)
        store.delete_journal([entry.id])
    return entries


def _undo_one(store: Store, entry: JournalEntry, now: datetime) -> None:
    created = [str(i) for i in entry.payload.get("created", [])]
    if created:
        retired = [
            m.model_copy(update={"status": MemoryStatus.DELETED, "updated_at": now})
            for m in store.get_memories(created)
        ]
        if retired:
            store.update_memories(retired)
    before = [Memory.model_validate(raw) for raw in entry.payload.get("before", [])]
    if before:
        existing = {m.id for m in store.get_memories([m.id for m in before])}
        store.update_memories([m for m in before if m.id in existing])
