"""Turning a transformer's token vectors into one unit vector per text.

Shared by the embedder and by the check of a conversion, so a model is verified with the
very pooling it will run with.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from cortex_tui.embed.base import Matrix

Pooling = Literal["mean", "cls", "max"]
POOLINGS: tuple[Pooling, ...] = ("mean", "cls", "max")


def pool(hidden: Matrix, attention_mask: npt.NDArray[np.int64], mode: Pooling) -> Matrix:
    """[batch, sequence, dim] → [batch, dim], L2-normalised; padding never counts."""
    mask = attention_mask[:, :, None].astype(np.float32)
    if mode == "cls":
        pooled = hidden[:, 0, :]
    elif mode == "max":
        pooled = np.where(mask > 0, hidden, -np.inf).max(axis=1)
    else:
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    # A zero vector stays zero rather than becoming NaN.
    normalised: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised
