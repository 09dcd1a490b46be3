"""Constants and builders shared by the store tests."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import numpy as np

from cortex_tui.models import Memory

# Read at import: the suite-wide autouse fixture clears CORTEX_* variables before tests run.
SERVER_URL = os.environ.get("CORTEX_QDRANT_URL")
SERVER_API_KEY = os.environ.get("CORTEX_QDRANT_API_KEY")
EMBEDDER = "test-embedder"
DIM = 8
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def make_memory(content: str = "a remembered fact", **fields: Any) -> Memory:
    """A memory at T0 unless the test says otherwise."""
    times = {"created_at": T0, "updated_at": T0, "valid_from": T0}
    return Memory(content=content, **{**times, **fields})


def unit_vectors(count: int, seed: int = 0, dim: int = DIM) -> list[list[float]]:
    """Random L2-normalised vectors (what embedders produce)."""
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(count, dim))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in matrix]
