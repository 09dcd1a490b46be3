"""An embedder wrapper that times every call and embeds each query text once.

Eval runs the same questions once per variant; the vectors cannot differ between
variants (they share the embedder), so the second and later passes reuse them and each
variant's time is its recall time alone.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from cortex_tui.embed.base import Embedder, EmbedderInFront, Matrix


class MeasuredEmbedder(EmbedderInFront):
    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self._queries: dict[str, Matrix] = {}
        self.seconds = 0.0

    def embed(self, texts: Sequence[str]) -> Matrix:
        started = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> Matrix:
        cached = self._queries.get(text)
        if cached is not None:
            return cached
        started = time.perf_counter()
        try:
            vector = self._queries[text] = self._inner.embed_query(text)
            return vector
        finally:
            self.seconds += time.perf_counter() - started

    def forget_queries(self) -> None:
        """Drop cached query vectors (between datasets: their questions differ)."""
        self._queries.clear()
