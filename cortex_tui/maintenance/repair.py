"""`cortex-tui repair`: a new store from what a damaged one still holds, never in place.

Everything readable is copied out into a backup first (`...-repair.cortex-backup`: a page
that no longer decodes is read again point by point, so one bad page costs only its
unreadable points), which is then restored like any backup: built beside the damaged
store and swapped in, the damaged folder kept as `store.damaged-<time>/`. A point whose
payload cannot be read is lost to the new store; for a lost memory the journal may
still hold its state before some curation step, and those states are written to a file
`cortex-tui import` takes, for a person to look at rather than brought back blindly (a
state from before a "forget" would otherwise come back as live). A backup taken before
the damage holds everything: restoring it is the way back to a complete store.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from cortex_tui.config import Settings
from cortex_tui.errors import StoreError
from cortex_tui.maintenance.backup import (
    Progress,
    default_target,
    file_name,
    read_points,
    write_backup,
)
from cortex_tui.maintenance.reembed_sites import recover_interrupted
from cortex_tui.maintenance.restore import restore_backup
from cortex_tui.maintenance.transfer import dump_line, header_line
from cortex_tui.models import Memory
from cortex_tui.private import open_private
from cortex_tui.store.base import StoredPoint, StoreMeta
from cortex_tui.store.edge import EdgeStore, read_meta
from cortex_tui.store.integrity import Integrity, Promise, damaged

REASON = "repair"


@dataclass
class RepairReport:
    copied: dict[str, int]
    lost: dict[str, int]
    salvage: str
    """The backup of everything that was readable."""
    previous: str | None
    """Where the damaged store went (or its backup, when it turned out readable)."""
    journal_states: str | None = None
    """File of the journal's last record of lost memories (None: it had none)."""
    journal_memories: int = 0
    seconds: float = 0.0


@dataclass
class _Readable:
    """A `PointSource` over a damaged store: its readable points, noting the others."""

    store: EdgeStore
    lost: dict[str, list[str]] = field(default_factory=dict)

    @property
    def location(self) -> str:
        return self.store.location

    @property
    def meta(self) -> StoreMeta:
        return self.store.meta

    def points(self, collection: str) -> Iterator[StoredPoint]:
        return self.store.readable_points(collection, self.lost.setdefault(collection, []))


def repair(settings: Settings, progress: Progress | None = None) -> RepairReport:
    """Rebuild the embedded store from what is readable. The caller makes sure no
    service holds the store."""
    started = time.perf_counter()
    if settings.store.qdrant_url:
        raise StoreError(
            "repair rebuilds the embedded store; a Qdrant server's data is the server's to "
            "mend (its snapshots), or restore a backup with `cortex-tui restore-backup`"
        )
    live = settings.store_path
    recover_interrupted(live)
    if not live.exists():
        raise StoreError(f"no store at {live}; nothing to repair")
    meta = read_meta(live)
    if meta is None:
        raise damaged(
            str(live),
            f"it has no {live.name}/meta.json, so which model made its vectors is unknown",
        )
    promised = Integrity.read(live)
    store = EdgeStore.open(live, meta.embedder, meta.dimension, check_embedder=False, verify=False)
    try:
        source = _Readable(store)
        now = datetime.now(UTC)
        target = default_target(settings.backups_path, now, REASON)
        salvage = write_backup(source, target, reason=REASON, now=now)
    finally:
        store.close()
    lost_memories = set(source.lost.get("memories", []))
    states = _journal_states(Path(salvage.path), lost_memories)
    states_file = _write_states(settings.backups_path, now, states) if states else None
    restored = restore_backup(settings, Path(salvage.path), progress)
    return RepairReport(
        copied=salvage.info.counts,
        lost=_lost(salvage.info.counts, source.lost, promised),
        salvage=salvage.path,
        previous=restored.previous,
        journal_states=states_file,
        journal_memories=len(states),
        seconds=round(time.perf_counter() - started, 3),
    )


def _lost(
    copied: dict[str, int], unreadable: dict[str, list[str]], promised: Promise | None
) -> dict[str, int]:
    """Per collection, the points the new store lacks: those seen but unreadable, or, when
    the damage hid them (a cut id tracker), as many as the store's record says it held
    beyond what was copied."""
    written = promised.counts if promised is not None else {}
    return {
        name: max(len(unreadable.get(name, [])), written.get(name, 0) - copied.get(name, 0))
        for name in copied
    }


def _journal_states(backup: Path, lost: set[str]) -> list[Memory]:
    """The newest state the journal recorded of each lost memory."""
    if not lost:
        return []
    newest: dict[str, tuple[int, Memory]] = {}
    for collection, point in read_points(backup):
        if collection != "journal":
            continue
        seq = int(point.payload.get("seq", -1))
        try:
            recorded = json.loads(point.payload["payload_json"]).get("before", [])
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        for state in recorded:
            memory_id = state.get("id") if isinstance(state, dict) else None
            if memory_id not in lost or (memory_id in newest and newest[memory_id][0] > seq):
                continue
            try:
                newest[memory_id] = (seq, Memory.model_validate(state))
            except ValidationError:
                continue
    return [memory for _, memory in sorted(newest.values(), key=lambda item: item[0])]


def _write_states(folder: Path, now: datetime, states: list[Memory]) -> str:
    path = folder / file_name(now, "lost memories", suffix=".jsonl")
    with open_private(path, "w") as out:
        out.write(header_line() + "\n")
        for memory in states:
            out.write(dump_line(memory) + "\n")
    return str(path)
