"""Fusing the dense, lexical and graph channels into one relevance value per candidate.

Three modes, measured against each other with `cortex-tui eval --variant`:

- `weighted` (default): (1 − λ)·dense + λ·lexical, each channel's score first put on
  [0, 1] by its normalisation, the lexical one then multiplied by the memory's coverage
  of the query (the share of the query's terms it contains, to a configured power). It
  keeps score magnitudes: a near-exact lexical hit lifts a memory a lot, a weak one
  barely, and a lone match on one word of a long question is not "the best" match.
- `rrf`: reciprocal-rank fusion with k = 60 over every channel, normalised so that rank 1
  in every channel is 1.0. It throws magnitudes away: the 40th lexical hit of a
  one-word overlap counts as much as the 40th dense hit.
- `dense`: cosine only (the lexical channel still adds candidates).

A channel's normalisation reads its statistics from the channel's own top list (the
first `dense_candidates` / `lexical_candidates` hits), never from the pool: "why not?"
widens the pool, and the same memory must get the same relevance there as in recall.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cortex_tui.config import FusionMode, Normalisation
from cortex_tui.models import ChannelHit


@dataclass(frozen=True, slots=True)
class ChannelScale:
    """Maps one channel's raw scores onto [0, 1] for one query."""

    mode: Normalisation
    ordered: tuple[float, ...]
    """The channel's top-list scores, ascending."""
    mean: float
    spread: float

    @classmethod
    def of(cls, mode: Normalisation, scores: Sequence[float]) -> ChannelScale:
        ordered = tuple(sorted(scores))
        if not ordered:
            return cls(mode, ordered, 0.0, 0.0)
        return cls(mode, ordered, statistics.fmean(ordered), statistics.pstdev(ordered))

    def __call__(self, value: float | None) -> float:
        """The normalised score; a memory the channel did not score at all gets 0."""
        if value is None:
            return 0.0
        ordered = self.ordered
        if self.mode == "raw":
            return _unit(value)
        if not ordered:
            return 0.0
        top = ordered[-1]
        if self.mode == "max":
            return _unit(value / top) if top > 0 else 0.0
        if self.mode == "minmax":
            low = ordered[0]
            return _unit((value - low) / (top - low)) if top > low else float(value >= top)
        if self.mode == "rank":
            # The share of the channel's top list scoring at most this value: 1.0 for the
            # best hit, 0 below the list.
            return bisect_right(ordered, value) / len(ordered)
        if self.spread == 0:
            return 0.5 if value >= top else 0.0
        # z-score through the normal CDF: the share of a normal channel list it beats.
        z = (value - self.mean) / self.spread
        return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _unit(value: float) -> float:
    return max(0.0, min(1.0, value))


@dataclass(frozen=True, slots=True)
class Relevance:
    """A candidate's fused relevance and, for weighted fusion, the terms behind it."""

    value: float
    dense: float | None = None
    lexical: float | None = None
    """The lexical term of the sum: `bm25 × coverage`."""
    bm25: float | None = None
    """BM25 on the lexical channel's scale."""
    coverage: float | None = None
    """Query coverage raised to its power, the factor applied to `bm25`; None when not
    measured."""
    lexical_weight: float | None = None


def relevance(
    mode: FusionMode,
    *,
    cosine: float,
    lexical_score: float | None,
    dense_scale: ChannelScale,
    lexical_scale: ChannelScale,
    ranks: Iterable[ChannelHit | None],
    channels: int,
    lexical_weight: float,
    rrf_k: int,
    coverage: float | None = None,
) -> Relevance:
    """`coverage` is the memory's share of the query's terms already raised to its power;
    None when it was not measured (no BM25, or coverage switched off), which leaves the
    BM25 term as it is."""
    if mode == "dense":
        return Relevance(_unit(cosine))
    if mode == "rrf":
        total = sum(1.0 / (rrf_k + hit.rank) for hit in ranks if hit is not None)
        best = channels / (rrf_k + 1)
        return Relevance(total / best if best else 0.0)
    dense = dense_scale(cosine)
    bm25 = lexical_scale(lexical_score)
    lexical = bm25 if coverage is None else bm25 * coverage
    value = (1.0 - lexical_weight) * dense + lexical_weight * lexical
    return Relevance(value, dense, lexical, bm25, coverage, lexical_weight)
