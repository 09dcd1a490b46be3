"""How long the service's requests hold the engine, and how long they waited for it.

A hook that waits behind a slow writer is the latency an agent feels, so `serve --status`
and `cortex-tui bench` report both, per kind of access, over the most recent holds.
"""

from __future__ import annotations

import statistics
import threading
from collections import deque

KEEP = 20_000
"""Holds remembered per kind: a long burst's worth, with bounded memory."""


class HoldTimes:
    """Recent hold and wait durations (seconds) per kind of access; thread-safe."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._holds: dict[str, deque[float]] = {}
        self._waits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def record(self, kind: str, waited: float, held: float) -> None:
        with self._lock:
            self._holds.setdefault(kind, deque(maxlen=self._keep)).append(held)
            self._waits.setdefault(kind, deque(maxlen=self._keep)).append(waited)

    def summary(self) -> dict[str, dict[str, float]]:
        """Per kind: count, hold p50 / max and wait p50 / max in milliseconds."""
        with self._lock:
            kinds = {
                kind: (list(held), list(self._waits[kind])) for kind, held in self._holds.items()
            }
        return {
            kind: {
                "count": len(held),
                "hold_p50_ms": _ms(statistics.median(held)),
                "hold_max_ms": _ms(max(held)),
                "wait_p50_ms": _ms(statistics.median(waited)),
                "wait_max_ms": _ms(max(waited)),
            }
            for kind, (held, waited) in kinds.items()
        }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)
