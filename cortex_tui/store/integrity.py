"""What an embedded store's files promise, checked each time it opens.

Qdrant Edge replays its write-ahead log when a shard loads, which silently mends a lot,
but the log keeps only the last ~32 MB of writes: past that, a shard's segment files are
the only copy, and Edge loads what they still hold without complaint. With the id
tracker cut in half a shard loads half its points; with `segments/` deleted, none. So
the store keeps its own record, `integrity.json`: how many points each collection
holds and the number of the journal's newest entry, rewritten (atomically) after every
write that can change them. A write under way is recorded first, with how many points
it may add or remove, so a crash in the middle is told from damage.

On open the record is compared with what loaded; a difference beyond the write under
way is damage, reported with the shard and the two ways out (`StoreDamagedError`).
Reads that hit an unreadable page (a payload that no longer decompresses) are reported
the same way by the store.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pydantic import BaseModel, ValidationError

from cortex_tui.errors import StoreDamagedError
from cortex_tui.private import open_private

INTEGRITY_NAME = "integrity.json"
JOURNAL = "journal"
_DAMAGE_WORDS = ("decode", "decompress", "corrupt", "no such file", "unexpected end", "checksum")


class Promise(BaseModel):
    counts: dict[str, int]
    journal_last: int | None = None
    """`seq` of the journal's newest entry (None: the journal is empty)."""
    pending: dict[str, int] = {}
    """Collection → how many points the write under way may add or remove."""


class Integrity:
    """The record of one store folder; thread-safe."""

    def __init__(self, folder: Path, promise: Promise, *, read_only: bool = False) -> None:
        self._file = folder / INTEGRITY_NAME
        self._promise = promise
        self._read_only = read_only
        self._lock = threading.Lock()

    @classmethod
    def read(cls, folder: Path) -> Promise | None:
        """The record, or None for a store made before it was kept (or whose record is
        unreadable: it is written atomically, so only outside damage makes it so)."""
        try:
            return Promise.model_validate_json((folder / INTEGRITY_NAME).read_bytes())
        except (OSError, ValidationError):
            return None

    def record(self) -> None:
        """Write the record as it stands."""
        with self._lock:
            self._save(self._promise)

    def begin(self, collection: str, size: int) -> None:
        """A write of up to `size` points to `collection` is about to start (on top
        of any begun and not settled yet: a deferred batch flushes many at once)."""
        with self._lock:
            size += self._promise.pending.get(collection, 0)
            pending = {**self._promise.pending, collection: size}
            self._save(self._promise.model_copy(update={"pending": pending}))

    def under_way(self, collection: str) -> bool:
        """Whether a write to `collection` was begun and not yet settled."""
        return collection in self._promise.pending

    def settle(self, collection: str, count: int, journal_last: int | None) -> None:
        """The write to `collection` is flushed: it now holds `count` points."""
        with self._lock:
            if collection not in self._promise.pending:
                return
            counts = {**self._promise.counts, collection: count}
            pending = {k: v for k, v in self._promise.pending.items() if k != collection}
            update: dict[str, object] = {"counts": counts, "pending": pending}
            if collection == JOURNAL:
                update["journal_last"] = journal_last
            self._save(self._promise.model_copy(update=update))

    def _save(self, promise: Promise) -> None:
        if self._read_only:
            return
        temp = self._file.with_name(f".{INTEGRITY_NAME}.tmp")
        with open_private(temp, "w") as out:
            out.write(promise.model_dump_json())
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, self._file)
        self._promise = promise


def broken_promises(
    promise: Promise, counts: dict[str, int], journal_last: int | None
) -> list[str]:
    """What loaded differs from what was written, beyond a write under way."""
    broken = []
    for collection, promised in promise.counts.items():
        loaded = counts.get(collection, 0)
        if abs(loaded - promised) > promise.pending.get(collection, 0):
            broken.append(f"its {collection} hold {loaded} points where {promised} were written")
    if JOURNAL not in promise.pending and journal_last != promise.journal_last:
        broken.append(
            f"the journal's newest entry is #{_seq(journal_last)} where "
            f"#{_seq(promise.journal_last)} was written"
        )
    return broken


def damaged(location: str, what: str) -> StoreDamagedError:
    return StoreDamagedError(
        f"the store at {location} is damaged: {what}; restore a backup "
        "(`cortex-tui backup --list`, then `cortex-tui restore-backup FILE`) or run "
        "`cortex-tui repair` to rebuild what is readable into a new store beside it",
        what=what,
    )


def looks_damaged(exc: Exception) -> bool:
    """Whether an error Edge raised reading a shard means its files are damaged (Edge
    raises bare exceptions, so its message is all there is to go by)."""
    message = str(exc).lower()
    return any(word in message for word in _DAMAGE_WORDS)


def _seq(value: int | None) -> str:
    return "none" if value is None else str(value)
