"""Fusing the dense, lexical and graph channels into one relevance value per candidate.

Three modes, so they can be measured against each other (`cortex-tui eval` with
`CORTEX_RECALL__FUSION=...`):

- `weighted` (default): (1 − λ)·cosine + λ·BM25/max-BM25, λ = 0.2 by default (the
  range convex-combination studies of hybrid retrieval favour; measure yours with eval).
  It keeps score magnitudes: a near-exact lexical hit lifts a memory a lot, a weak one
  barely; a memory the dense channel likes strongly keeps that strength.
- `rrf`: reciprocal-rank fusion with k = 60 over every channel, normalised so that rank 1
  in every channel is 1.0. It throws magnitudes away: the 40th lexical hit of a
  one-word overlap counts as much as the 40th dense hit.
- `dense`: cosine only (the lexical channel still adds candidates).
"""

from __future__ import annotations

from collections.abc import Iterable

from cortex_tui.config import FusionMode
from cortex_tui.models import ChannelHit


def relevance(
    mode: FusionMode,
    *,
    cosine: float,
    lexical_score: float | None,
    max_lexical: float,
    ranks: Iterable[ChannelHit | None],
    channels: int,
    lexical_weight: float,
    rrf_k: int,
) -> float:
    cos = max(0.0, cosine)
    if mode == "dense":
        return cos
    if mode == "rrf":
        total = sum(1.0 / (rrf_k + hit.rank) for hit in ranks if hit is not None)
        best = channels / (rrf_k + 1)
        return total / best if best else 0.0
    lexical_norm = (lexical_score or 0.0) / max_lexical if max_lexical > 0 else 0.0
    return (1.0 - lexical_weight) * cos + lexical_weight * lexical_norm
