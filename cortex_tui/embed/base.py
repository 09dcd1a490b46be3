"""The `Embedder` protocol: texts in, L2-normalised float32 vectors out.

A store records `name` and `dimension`, so vectors of different embedders are never
mixed silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Stable identifier of the model and its vector space, e.g. `onnx:all-MiniLM-L6-v2`."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Shape (len(texts), dimension), each row L2-normalised; batches internally."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """Shape (dimension,): one query vector."""
        ...


class EmbedderInFront:
    """An embedder that stands in front of another and passes everything through: the
    base of wrappers that add one thing (a query cache, timing) and keep the inner
    embedder's identity, so stores see no difference."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self._inner.embed(texts)

    def embed_query(self, text: str) -> Matrix:
        return self._inner.embed_query(text)
