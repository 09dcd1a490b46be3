"""The names of the score's signals, apart from the models: the TUI's colours are made
from them before its first frame, which must not wait for pydantic."""

from __future__ import annotations

PRIOR_NAMES: tuple[str, ...] = (
    "recency",
    "frequency",
    "type",
    "scope",
    "confidence",
    "reinforcement",
    "tag_affinity",
    "graph_proximity",
    "period",
    "asker",
)
"""The signals that refine relevance, each as a bounded factor (see `recall/scoring.py`)."""

SIGNAL_NAMES: tuple[str, ...] = ("relevance", *PRIOR_NAMES)
