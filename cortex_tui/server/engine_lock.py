"""Who may use the service's engine when: one holder at a time, agents first.

The embedded store is not shared between threads, so every engine call holds this lock.
A request an agent or a person waits on (a read, the pre hook) is *urgent*: while one
waits, no background writer (capture, file sync, an API write) takes the lock, and a
writer that holds it ends its slice early (`contended`). Writers keep each hold short
(work batched, models run before the lock is taken), so an urgent request waits for
about one write, never a whole backlog. Holds and waits are recorded for `status`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from cortex_tui.server.hold_times import HoldTimes


class EngineLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held = False
        self._urgent_waiting = 0
        self._kind = ""
        self._waited = 0.0
        self._since = 0.0
        """The holder's access, how long it waited, and when it took the engine."""
        self.times = HoldTimes()

    @contextmanager
    def hold(self, kind: str, *, urgent: bool) -> Iterator[None]:
        """Hold the engine (not re-entrant); `kind` names the access in the statistics."""
        self._acquire(kind, urgent)
        try:
            yield
        finally:
            self._release()

    def let_waiting_in(self) -> None:
        """For the holder, between the pieces of a long write (an import's batches): an
        urgent request waiting goes first, then the holder takes the engine back. Each
        piece counts as a hold of its own."""
        if self._urgent_waiting:
            kind = self._kind
            self._release()
            self._acquire(kind, urgent=False)

    def contended(self) -> bool:
        """Whether an urgent request waits: a writer should end its slice."""
        return self._urgent_waiting > 0

    def _acquire(self, kind: str, urgent: bool) -> None:
        asked = time.perf_counter()
        with self._changed:
            if urgent:
                self._urgent_waiting += 1
            try:
                while self._held or (not urgent and self._urgent_waiting):
                    self._changed.wait()
            finally:
                if urgent:
                    self._urgent_waiting -= 1
            self._held = True
        self._kind, self._since = kind, time.perf_counter()
        self._waited = self._since - asked

    def _release(self) -> None:
        kind, waited, held = self._kind, self._waited, time.perf_counter() - self._since
        with self._changed:
            self._held = False
            self._changed.notify_all()
        self.times.record(kind, waited, held)
