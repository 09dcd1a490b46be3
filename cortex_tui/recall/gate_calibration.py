"""The relevance gate's cosines for any embedding model: each model's cosine put on the
scale of the model the gate was fitted with.

Cosines of two models do not line up (the hashing embedder's unrelated pairs sit at 0,
MiniLM's at 0.1–0.3, and a model for one language gives any two texts of another a high
one), but their order mostly does. The pair set that ships (`data/gate-pairs.json`:
the corpus's probes and prompts about nothing against its labels, all written for this
project) records the reference model's cosines at each percentile; a model's own at the
same percentiles maps its cosine onto the reference's by rank (linear in between, slope
one past either end). The map is kept in the models folder under the model's
vector-space name, made the first time that model's cosines are gated, like the write
path's thresholds (`embed/calibration.py`); the reference model needs none.
"""

from __future__ import annotations

import hashlib
import json
import logging
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from cortex_tui.embed.base import Embedder
from cortex_tui.embed.calibration import REFERENCES
from cortex_tui.embed.kept_calibrations import keep, kept_path

log = logging.getLogger(__name__)

PAIRS_FILE = "gate-pairs.json"
FOLDER = ".gate-calibrations"
"""Under the models folder; hidden, so the catalogue never reads it as a model."""
PERCENTILES = 101


class PairGroup(BaseModel):
    """Every prompt of the group against every text of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompts: list[int]
    texts: list[int]


class GatePairs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reference: str
    """The embedder whose cosines `reference_percentiles` records."""
    prompts: list[str]
    texts: list[str]
    groups: list[PairGroup]
    reference_percentiles: list[float]


class GateCalibration(BaseModel):
    """One model's cosines at the pair set's percentiles, beside the reference's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedder: str
    pairs: str
    """The fingerprint of the pair set it was made on: another set is fitted again."""
    mine: list[float]
    reference: list[float]


class CosineScale:
    """A model's cosine → the reference model's, by rank on the pair set."""

    def __init__(self, mine: Sequence[float], reference: Sequence[float]) -> None:
        # A run of equal cosines of this model (the hashing embedder's unrelated pairs
        # all read 0) stands for the middle of the reference's values there.
        merged: dict[float, list[float]] = {}
        for own, theirs in zip(mine, reference, strict=True):
            merged.setdefault(own, []).append(theirs)
        self._mine = sorted(merged)
        self._reference = [sum(merged[x]) / len(merged[x]) for x in self._mine]

    @classmethod
    def identity(cls) -> CosineScale:
        return cls([-1.0, 1.0], [-1.0, 1.0])

    def __call__(self, cosine: float) -> float:
        mine, reference = self._mine, self._reference
        if cosine <= mine[0]:
            return cosine - mine[0] + reference[0]
        if cosine >= mine[-1]:
            return cosine - mine[-1] + reference[-1]
        high = bisect_right(mine, cosine)
        low = high - 1
        share = (cosine - mine[low]) / (mine[high] - mine[low])
        return reference[low] + share * (reference[high] - reference[low])


def pairs_file() -> Traversable:
    return files("cortex_tui.recall").joinpath("data", PAIRS_FILE)


@lru_cache(maxsize=1)
def gate_pairs() -> GatePairs:
    return GatePairs.model_validate(json.loads(pairs_file().read_text()))


@lru_cache(maxsize=1)
def pairs_fingerprint() -> str:
    return hashlib.sha256(pairs_file().read_bytes()).hexdigest()[:16]


def is_reference(embedder_name: str) -> bool:
    """The model the gate was fitted with, or another name of the same weights (the
    default MiniLM and its packaged file, `embed/calibration.REFERENCES`)."""
    reference = gate_pairs().reference
    same_weights = reference in REFERENCES and embedder_name in REFERENCES
    return embedder_name == reference or same_weights


def cosine_scale(embedder: Embedder, models_dir: Path) -> CosineScale:
    """The scale for `embedder`: none for the reference, else the kept map, or one made
    now (and kept)."""
    if is_reference(embedder.name):
        return CosineScale.identity()
    calibration = stored(models_dir, embedder.name) or remember(models_dir, fit(embedder))
    return CosineScale(calibration.mine, calibration.reference)


def pair_cosines(embedder: Embedder, pairs: GatePairs) -> list[float]:
    """The embedder's cosine of every pair of the set (its vectors are unit length)."""
    prompts = np.asarray([embedder.embed_query(p) for p in pairs.prompts], dtype=np.float32)
    texts = np.asarray(embedder.embed(pairs.texts), dtype=np.float32)
    cosines: list[float] = []
    for group in pairs.groups:
        block = prompts[group.prompts] @ texts[group.texts].T
        cosines.extend(float(x) for x in block.ravel())
    return cosines


def percentiles(values: Sequence[float]) -> list[float]:
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    points = np.quantile(ordered, np.linspace(0.0, 1.0, PERCENTILES))
    return [round(float(x), 5) for x in points]


def fit(embedder: Embedder) -> GateCalibration:
    pairs = gate_pairs()
    return GateCalibration(
        embedder=embedder.name,
        pairs=pairs_fingerprint(),
        mine=percentiles(pair_cosines(embedder, pairs)),
        reference=pairs.reference_percentiles,
    )


def stored(models_dir: Path, embedder_name: str) -> GateCalibration | None:
    """The map kept for this vector space and this pair set; an unreadable one, or one
    made on another set, is made again."""
    try:
        calibration = GateCalibration.model_validate_json(
            _path(models_dir, embedder_name).read_bytes()
        )
    except (OSError, ValidationError):
        return None
    kept = (calibration.embedder, calibration.pairs)
    return calibration if kept == (embedder_name, pairs_fingerprint()) else None


def remember(models_dir: Path, calibration: GateCalibration) -> GateCalibration:
    """Keep `calibration` (`kept_calibrations.keep`: whole or not at all)."""
    text = calibration.model_dump_json(indent=2)
    keep(models_dir, FOLDER, calibration.embedder, text, "the relevance gate's calibration")
    return calibration


def forget(models_dir: Path, embedder_name: str) -> None:
    _path(models_dir, embedder_name).unlink(missing_ok=True)


def _path(models_dir: Path, embedder_name: str) -> Path:
    return kept_path(models_dir, FOLDER, embedder_name)
