"""Latency samples summarised the way the README reports them (p50 / p95)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass
class Timing:
    samples: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        ordered = sorted(self.samples)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return {
            "p50_ms": round(statistics.median(ordered) * 1000, 3),
            "p95_ms": round(p95 * 1000, 3),
            "runs": len(ordered),
        }
