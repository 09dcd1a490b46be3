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
