"""The write path's cosine thresholds for any embedding model: the calibration set they
are fitted on, and where each model's are kept.

The thresholds (`write.duplicate_threshold`, `related_threshold`, `restate_threshold`,
`elaborate_threshold`, `change_threshold`) were set on the default model's cosines, and
cosines of two models do not line up. The calibration set (`data/write-calibration.json`,
the development pairs of the project's labelled corpus: repeats, restatements, updates,
conflicts and unrelated facts) holds each pair's label and the default model's cosine;
`write/calibration.py` fits another model's thresholds on it.

A calibration is kept in the models folder under the embedder's vector-space name (made
by `model add`, or on the spot the first time another embedder is opened), so a model is
never used with another model's numbers. The default MiniLM and its packaged file (the
same weights) are the reference and keep the configured values.
"""

from __future__ import annotations

import json
import logging
from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from cortex_tui.config import WritePathConfig
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.catalogue import PACKAGED_EMBEDDER
from cortex_tui.embed.kept_calibrations import keep, kept_path
from cortex_tui.models import WriteLabel

log = logging.getLogger(__name__)

CALIBRATION_FILE = "write-calibration.json"
REFERENCES = frozenset({"onnx:all-MiniLM-L6-v2@int8:8199be6f", PACKAGED_EMBEDDER})
"""The default model and its packaged file (the same weights): the thresholds were set
on their cosines. A test checks the calibration set records the first."""
FOLDER = ".write-calibrations"
"""Under the models folder; hidden, so the catalogue never reads it as a model."""
THRESHOLDS = (
    "duplicate_threshold",
    "related_threshold",
    "restate_threshold",
    "elaborate_threshold",
    "change_threshold",
)


CalibrationPair = tuple[str, str, WriteLabel, float]
"""Old statement, new statement, what the new one should become, the reference cosine."""


class CalibrationSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reference: str
    """The embedder whose cosines `pairs` records (the default model)."""
    pairs: list[CalibrationPair]


class WriteCalibration(BaseModel):
    """One model's write-path thresholds, and the embedder they were computed for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    embedder: str
    judge: str
    """The fingerprint of the judge it was fitted with (`write/calibration.py`): the
    rules' verdicts decide where each threshold falls, so another version of them is
    fitted again rather than run with numbers chosen for the old one."""
    duplicate_threshold: float
    related_threshold: float
    restate_threshold: float
    elaborate_threshold: float
    change_threshold: float


def calibration_file() -> Traversable:
    return files("cortex_tui.embed").joinpath("data", CALIBRATION_FILE)


@lru_cache(maxsize=1)
def calibration_set() -> CalibrationSet:
    return CalibrationSet.model_validate(json.loads(calibration_file().read_text()))


def pair_cosines(embedder: Embedder, pairs: Sequence[CalibrationPair]) -> list[float]:
    """The embedder's cosine of each pair (its vectors are unit length)."""
    texts = list(dict.fromkeys(text for old, new, _, _ in pairs for text in (old, new)))
    vectors = embedder.embed(texts)
    row = {text: vectors[index] for index, text in enumerate(texts)}
    return [float(row[old] @ row[new]) for old, new, _, _ in pairs]


def carried_by_rank(threshold: float, reference: list[float], mine: list[float]) -> float:
    """The cosine at which `mine` reaches the rank `threshold` has in `reference`
    (linear between neighbouring pairs), kept inside (0, 1]."""
    rank = _rank(threshold, reference)
    position = rank * (len(mine) - 1)
    low = int(position)
    high = min(low + 1, len(mine) - 1)
    value = mine[low] + (mine[high] - mine[low]) * (position - low)
    return round(min(1.0, max(1e-3, value)), 4)


def _rank(threshold: float, ordered: list[float]) -> float:
    """Where `threshold` falls among `ordered`, from 0 (below all) to 1 (above all)."""
    if threshold <= ordered[0]:
        return 0.0
    if threshold >= ordered[-1]:
        return 1.0
    index = bisect_left(ordered, threshold)
    below, above = ordered[index - 1], ordered[index]
    fraction = (threshold - below) / (above - below) if above > below else 0.0
    return (index - 1 + fraction) / (len(ordered) - 1)


def default_thresholds() -> dict[str, float]:
    return {name: WritePathConfig.model_fields[name].default for name in THRESHOLDS}


def stored(models_dir: Path, embedder_name: str, judge: str) -> WriteCalibration | None:
    """The calibration kept for this vector space and this judge; an unreadable one, or
    one fitted with another judge, is made again."""
    path = _path(models_dir, embedder_name)
    try:
        calibration = WriteCalibration.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
    return (
        calibration if (calibration.embedder, calibration.judge) == (embedder_name, judge) else None
    )


def remember(models_dir: Path, calibration: WriteCalibration) -> WriteCalibration:
    """Keep `calibration` (`kept_calibrations.keep`: whole or not at all)."""
    text = calibration.model_dump_json(indent=2)
    keep(models_dir, FOLDER, calibration.embedder, text, "the write path's calibration")
    return calibration


def forget(models_dir: Path, embedder_name: str) -> None:
    _path(models_dir, embedder_name).unlink(missing_ok=True)


def _path(models_dir: Path, embedder_name: str) -> Path:
    return kept_path(models_dir, FOLDER, embedder_name)
