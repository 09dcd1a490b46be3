"""Compaction of the store once the service is quiet.

A store opens fast only where its memories sit in compacted segments: the segment being
written rebuilds its payload indexes in RAM on every open (0.79 s at 100k memories, 0.23
once compacted). Edge compacts in `optimize()`, which holds the GIL for its whole run, so
every thread of the service stops meanwhile. It therefore runs only after the store
changed and no request came for a while, and each run is bounded by what was written
since the last (`Store.compact`): 7.7 s at most while a store grows to 100k. Edge
compacts into temporary segments and swaps them in, so a run cut short by a crash
leaves the store as it was.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger("cortex_tui.server")


@dataclass(frozen=True)
class CompactionRun:
    at: datetime
    seconds: float
    compacted: bool
    """Whether anything was folded (False: too little written since the last run)."""


class QuietCompaction:
    """A thread that calls `compact` once the store changed (`changes` moved on) and
    `quiet_for` reports `after` seconds without a request."""

    def __init__(
        self,
        compact: Callable[[], bool],
        changes: Callable[[], int],
        quiet_for: Callable[[], float],
        after: float,
    ) -> None:
        self._compact = compact
        self._changes = changes
        self._quiet_for = quiet_for
        self.after = after
        self._seen = changes()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="compaction", daemon=True)
        self.runs = 0
        self.last: CompactionRun | None = None

    def start(self) -> None:
        if self.after > 0:
            self._thread.start()

    def stop(self) -> None:
        """Stop waiting; a run under way ends first (it cannot be interrupted)."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def status(self) -> dict[str, Any]:
        last = self.last
        return {
            "after_quiet_s": self.after,
            "runs": self.runs,
            "last": None
            if last is None
            else {"at": last.at.isoformat(), "seconds": last.seconds, "compacted": last.compacted},
        }

    def _loop(self) -> None:
        poll = min(5.0, self.after / 2)
        while not self._stopping.wait(poll):
            changes = self._changes()
            if changes == self._seen or self._quiet_for() < self.after:
                continue
            self._seen = changes
            try:
                self._run()
            except Exception:
                log.exception("compacting the store failed; it stays as it is")

    def _run(self) -> None:
        started = time.perf_counter()
        compacted = self._compact()
        seconds = round(time.perf_counter() - started, 3)
        self.runs += 1
        self.last = CompactionRun(datetime.now(UTC), seconds, compacted)
        if compacted:
            log.info("compacted the store in %.1f s", seconds)
