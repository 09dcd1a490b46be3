"""Latency samples summarised the way the docs report them (p50 / p95)."""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from cortex_tui.embed.base import Embedder


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


def children_cpu() -> float:
    """CPU seconds of this process's finished children (a child still running, such as
    a service, is not counted until it ends)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def time_query_embedding(embedder: Embedder, queries: Sequence[str]) -> dict[str, float]:
    """Each query embedded alone after one warm-up run, as recall embeds them."""
    embedder.embed_query("warm up")
    timing = Timing()
    for query in queries:
        t0 = time.perf_counter()
        embedder.embed_query(query)
        timing.samples.append(time.perf_counter() - t0)
    return timing.summary()
