"""Getting spooled changes stored: by the service, or by this process with it off.

With the service (the default), it is asked to drain the spool and the caller watches
the spool empty of its entries, drawing progress as batches are recorded; a service
that cannot start or stops answering leaves them queued, and it stores them when it
next runs (any hook starts it). Without it (`--no-daemon`, `CORTEX_DAEMON=0`), this
process opens the store and drains the spool itself.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cortex_tui.agent_turn.drain import capture_turn, drain_spool
from cortex_tui.agent_turn.file_changes import BATCH
from cortex_tui.clients import local_service
from cortex_tui.config import Settings
from cortex_tui.spool.durable import Spool, TurnProgress
from cortex_tui.spool.entries import CandidateFields, SpoolEntry, entry_size

POLL = 0.05
POLL_MAX = 0.5
"""The spool is polled often at first (a one-line change is stored in tens of ms), then
less (a long file's drain is not slowed by a watcher parsing the spool many times a
second)."""
Progress = Callable[[int, int], None]
"""(operations stored, operations in all)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    stored: bool
    """False when entries stay queued (the service is down or did not finish)."""
    operations: int = 0
    """Statements and exchanges the spool held (this pass's and any queued before)."""
    note: str = ""


def deliver(
    settings: Settings,
    *,
    daemon: bool,
    wait: bool = True,
    progress: Progress | None = None,
    log: logging.Logger | None = None,
) -> Delivery:
    """Store everything the spool holds: this pass's changes, and any queued earlier
    while the service was down (a sync that says "stored" leaves nothing behind)."""
    log = log or logging.getLogger(__name__)
    spool = Spool(settings.home / "spool", log)
    sizes = {entry["key"]: entry_size(entry) for entry in spool.pending()}
    operations = sum(sizes.values())
    if not sizes:
        return Delivery(stored=True)
    if not daemon:
        _drain_here(settings, spool, operations, progress, log)
        return Delivery(stored=True, operations=operations)
    home = settings.home
    queued = "queued in the spool; the service stores them when it next runs"
    if not local_service.start(home, wait=settings.service.start_wait):
        refusal = local_service.start_refusal(home)
        why = f"it did not start: {refusal}" if refusal else "it is still starting"
        return Delivery(False, operations, f"{queued} ({why})")
    try:
        local_service.call(home, "POST", "/v1/spool/drain", timeout=5.0)
    except (local_service.ServiceUnavailable, local_service.ServiceError) as exc:
        return Delivery(False, operations, f"{queued} ({exc})")
    if not wait:
        return Delivery(False, operations, "queued; the service is storing them")
    if _watch_drain(home, spool, sizes, progress):
        return Delivery(True, operations)
    return Delivery(False, operations, f"{queued} (the service stopped)")


def _watch_drain(
    home: Path, spool: Spool, sizes: dict[str, int], progress: Progress | None
) -> bool:
    """Poll the spool until none of the entries in `sizes` is pending; False when the
    service stops answering first."""
    operations = sum(sizes.values())
    started_at = time.monotonic()
    while True:
        pending = [e["key"] for e in spool.pending() if e["key"] in sizes]
        if progress:
            progress(_stored(spool, pending, sizes), operations)
        if not pending:
            return True
        if local_service.status(home) is None:
            return False
        time.sleep(min(POLL_MAX, POLL + (time.monotonic() - started_at) / 20))


def _stored(spool: Spool, pending: list[str], sizes: dict[str, int]) -> int:
    """Operations stored so far: the entries no longer pending, and the batches the
    spool recorded of the one being applied (oldest first: the one the drain is on)."""
    stored = sum(sizes.values()) - sum(sizes[key] for key in pending)
    if pending:
        stored += min(spool.progress(pending[0]).written * BATCH, sizes[pending[0]])
    return stored


def _drain_here(
    settings: Settings,
    spool: Spool,
    operations: int,
    progress: Progress | None,
    log: logging.Logger,
) -> None:
    from cortex_tui.engine.open import open_engine

    engine = open_engine(settings)
    done = 0

    def capture(item: SpoolEntry, turn: TurnProgress) -> str:
        nonlocal done
        counted = _Counting(turn, progress, done, operations) if item["kind"] == "changes" else turn
        summary = capture_turn(engine, item, counted)
        done += entry_size(item)
        if progress:
            progress(min(done, operations), operations)
        return summary

    try:
        drain_spool(spool, capture, log, redact=engine.privacy.clean)
    finally:
        engine.close()


class _Counting:
    """A turn's progress that also advances the bar as a file's batches are written."""

    def __init__(self, inner: TurnProgress, bar: Progress | None, base: int, total: int) -> None:
        self._inner = inner
        self._bar = bar
        self._base = base
        self._total = total

    def saved_candidates(self) -> list[CandidateFields] | None:
        return self._inner.saved_candidates()

    def save_candidates(self, candidates: list[CandidateFields]) -> None:
        self._inner.save_candidates(candidates)

    def is_written(self, index: int) -> bool:
        return self._inner.is_written(index)

    def mark_written(self, index: int) -> None:
        self._inner.mark_written(index)
        if self._bar:
            self._bar(min(self._base + (index + 1) * BATCH, self._total), self._total)
