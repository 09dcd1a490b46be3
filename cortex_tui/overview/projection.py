"""Vectors onto a plane: principal component analysis, and the sample it is drawn from.

PCA rather than a neighbour-preserving embedding (UMAP, t-SNE): it is a few lines of
numpy, deterministic, fast at 20,000 points, and a new memory lands where its vector
puts it without refitting, so the map stays still while the store grows. Its price is
that only the two widest directions are kept; `Projection.explained` says how much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

Matrix = np.ndarray[Any, np.dtype[np.float32]]

SAMPLE_SIZE = 20_000
"""Points drawn at most: beyond this a terminal's cells are full many times over. The
sample is the memories with the smallest ids: ids are random (UUID4), so that is a
uniform draw, the same every time, which a growing store mostly keeps, and the store
reads it in its own order without reading the rest."""


@dataclass(frozen=True)
class Projection:
    """The mean and the two principal axes of a set of vectors."""

    mean: Matrix
    axes: Matrix
    """2 × d, unit rows."""
    explained: tuple[float, float]
    fitted_on: int

    def apply(self, vectors: Matrix) -> Matrix:
        """n × 2 coordinates of n × d vectors."""
        if len(vectors) == 0:
            return np.zeros((0, 2), np.float32)
        centred = np.asarray(vectors, np.float32) - self.mean
        return np.asarray(centred @ self.axes.T, np.float32)


def fit(vectors: Matrix) -> Projection:
    """The two widest directions of `vectors` (n × d), each signed so that its largest
    loading is positive: the same data always gives the same picture, never a mirror."""
    data = np.asarray(vectors, np.float64)
    count, dimension = data.shape
    mean = data.mean(axis=0) if count else np.zeros(dimension)
    if count < 2:
        axes = np.eye(2, dimension)
        return Projection(mean.astype(np.float32), axes.astype(np.float32), (0.0, 0.0), count)
    centred = data - mean
    covariance = centred.T @ centred / count
    values, vectors_ = np.linalg.eigh(covariance)  # ascending
    top = vectors_[:, ::-1][:, :2].T
    largest = top[np.arange(2), np.argmax(np.abs(top), axis=1)]
    top = top * np.where(largest < 0, -1.0, 1.0)[:, None]
    total = float(values.sum())
    shares = values[::-1][:2] / total if total > 0 else np.zeros(2)
    return Projection(
        mean.astype(np.float32),
        top.astype(np.float32),
        (round(float(shares[0]), 4), round(float(shares[1]), 4)),
        count,
    )
