"""How fast each tenant of a team server may make requests (`tenants.requests_per_minute`):
a token bucket per tenant, as full as a minute's allowance, so a burst is let through and
a steady flood is slowed to the allowance."""

from __future__ import annotations

import threading
import time


class RequestRate:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}
        """Per tenant: tokens left, and when they were counted (monotonic)."""

    def wait(self, tenant: str) -> float:
        """0 when the request may go now (it takes a token); else the seconds until it may."""
        now = time.monotonic()
        refill = self.per_minute / 60.0
        with self._lock:
            tokens, then = self._buckets.get(tenant, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - then) * refill)
            if tokens >= 1.0:
                self._buckets[tenant] = (tokens - 1.0, now)
                return 0.0
            self._buckets[tenant] = (tokens, now)
            return (1.0 - tokens) / refill
