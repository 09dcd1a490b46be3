"""Groups on the map and the words that name them.

k-means on the 2-D coordinates (not the full vectors): a label belongs to a blob the
user can see. Started from points spread along the first axis, so the result is the
same on every run; `k` grows with the square root of the store, up to eight labels,
which is what a terminal map has room for.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_CLUSTERS = 8
ITERATIONS = 30
LABEL_TERMS = 3

Coords = np.ndarray[Any, np.dtype[np.float32]]
Labels = np.ndarray[Any, np.dtype[np.intp]]


def cluster_count(points: int) -> int:
    """About one cluster per 20 points at first (a demo-sized store gets a handful),
    never more than `MAX_CLUSTERS`."""
    if points < 4:
        return 0
    return min(MAX_CLUSTERS, max(2, round(math.sqrt(points / 5))))


def kmeans(coords: Coords, k: int) -> tuple[Coords, Labels]:
    """Centres (k × 2) and each point's cluster; deterministic for the same points."""
    order = np.argsort(coords[:, 0], kind="stable")
    picks = order[((np.arange(k) + 0.5) * len(coords) / k).astype(int)]
    centres = coords[picks].astype(np.float64)
    labels = np.zeros(len(coords), np.intp)
    for _ in range(ITERATIONS):
        distances = ((coords[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new_labels = distances.argmin(axis=1)
        if np.array_equal(new_labels, labels) and _ > 0:
            break
        labels = new_labels
        for cluster in range(k):
            members = coords[labels == cluster]
            if len(members):
                centres[cluster] = members.mean(axis=0)
    return centres.astype(np.float32), labels


def distinctive_terms(
    cluster_terms: Sequence[set[str]], all_terms: Sequence[set[str]], limit: int = LABEL_TERMS
) -> list[str]:
    """Terms frequent in the cluster and rarer elsewhere: in-cluster document frequency
    times the log of how much more often they appear there than in the whole store.
    A term in under two of the cluster's memories names nothing."""
    inside = Counter(term for terms in cluster_terms for term in terms)
    overall = Counter(term for terms in all_terms for term in terms)
    size, total = max(1, len(cluster_terms)), max(1, len(all_terms))
    scored = []
    for term, count in inside.items():
        if count < 2:
            continue
        lift = (count / size) / (overall[term] / total)
        if lift > 1:
            scored.append((-(count * math.log(lift)), term))
    return [term for _, term in sorted(scored)[:limit]]
