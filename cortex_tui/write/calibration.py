"""Fitting the write path's thresholds to an embedding model, on the labelled calibration
set that ships with the package (`embed/calibration.py`).

Cosines of two models do not line up: all-mpnet-base-v2 judged with MiniLM's numbers
superseded unrelated memories, and the hashing embedder's cosines sit far lower than
any sentence model's. What carries over is the judgement itself: the rules' verdict on
each calibration pair does not depend on the model, only where its cosine falls against
the thresholds does. So each threshold is chosen, one at a time and twice over, as the
value that makes the fewest wrong decisions on the calibration pairs with this model's
cosines, a decision that loses a claim counting five; among equally good values, the one
nearest the default's rank among the cosines (where the default model's threshold sits
among its own cosines), which is also the starting point.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from cortex_tui.config import WritePathConfig
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.calibration import (
    REFERENCES,
    THRESHOLDS,
    CalibrationPair,
    WriteCalibration,
    calibration_file,
    calibration_set,
    carried_by_rank,
    default_thresholds,
    pair_cosines,
    remember,
    stored,
)
from cortex_tui.models import FOLDED_LABELS, WriteLabel
from cortex_tui.write.judge.contradiction import FOLDS, PairCall, judge_offline, kept_apart
from cortex_tui.write.judge.decision import settle

LOSES_A_CLAIM = 5
"""What a decision that loses a claim costs, against 1 for any other wrong decision:
folding a pair of different claims, or superseding a memory with an unrelated or
rival one. The write path keeps both when unsure; its thresholds must too."""
CANDIDATES = 60
"""Values tried per threshold: evenly spaced ranks of the model's own cosines."""
ROUNDS = 2


@dataclass(frozen=True, slots=True)
class Thresholds:
    duplicate_threshold: float
    related_threshold: float
    restate_threshold: float
    elaborate_threshold: float
    change_threshold: float


@dataclass(frozen=True, slots=True)
class Case:
    """One calibration pair as the write path sees it, the model-free part read once."""

    rules: PairCall
    apart: PairCall | None
    cosine: float
    label: WriteLabel


def calibrated(config: WritePathConfig, embedder: Embedder, models_dir: Path) -> WritePathConfig:
    """`config` with the thresholds `embedder` needs: the kept calibration, or one fitted
    now (and kept); a threshold the person set is theirs."""
    if embedder.name in REFERENCES:
        return config
    calibration = stored(models_dir, embedder.name, judge_fingerprint()) or remember(
        models_dir, fit(embedder)
    )
    chosen = {
        name: getattr(calibration, name)
        for name in THRESHOLDS
        if name not in config.model_fields_set
    }
    return config.model_copy(update=chosen)


def fit(embedder: Embedder) -> WriteCalibration:
    pairs = calibration_set().pairs
    cosines = pair_cosines(embedder, pairs)
    cases = cases_of(pairs, cosines)
    reference = sorted(cosine for *_, cosine in pairs)
    mine = sorted(cosines)
    start = {
        name: carried_by_rank(value, reference, mine)
        for name, value in default_thresholds().items()
    }
    best = Thresholds(**start)
    last = len(mine) - 1
    grid = {round(mine[i * last // (CANDIDATES - 1)], 4) for i in range(CANDIDATES)} | {1.0}
    for _ in range(ROUNDS):
        for name in THRESHOLDS:
            values = sorted(grid | {getattr(best, name)})
            best = _best_value(cases, best, name, values, start[name])
    return WriteCalibration(
        embedder=embedder.name,
        judge=judge_fingerprint(),
        **{n: getattr(best, n) for n in THRESHOLDS},
    )


@lru_cache(maxsize=1)
def judge_fingerprint() -> str:
    """What a fit depends on besides the model: the calibration set, the rules that
    judge it (`write/judge/`) and the reading of statements they use (`capture/`), how
    the embeddings settle their verdicts (`write/judge/decision.py`), this fit and the
    default thresholds it starts from (`config/write.py`). Hashing their
    source costs about a millisecond and changes with any edit, so a calibration made
    by an older judge is never reused; a release that changes nothing here keeps it."""
    digest = hashlib.sha256(calibration_file().read_bytes())
    sources = [
        f
        for package in ("cortex_tui.capture", "cortex_tui.write.judge")
        for f in files(package).iterdir()
        if f.name.endswith(".py")
    ]
    sources.append(files("cortex_tui.write").joinpath("calibration.py"))
    sources.append(files("cortex_tui.config").joinpath("write.py"))
    for source in sorted(sources, key=lambda f: f.name):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


def cases_of(pairs: Sequence[CalibrationPair], cosines: Sequence[float]) -> list[Case]:
    """The pairs as the write path sees them at these cosines."""
    return [
        Case(judge_offline(old, new), kept_apart(old, new), cosine, label)
        for (old, new, label, _), cosine in zip(pairs, cosines, strict=True)
    ]


def cost(cases: Sequence[Case], thresholds: Thresholds) -> int:
    """The write path's wrong decisions on `cases` under `thresholds`, those that lose
    a claim weighted `LOSES_A_CLAIM`."""
    total = 0
    for case in cases:
        decided = decide(case, thresholds)
        if decided != case.label:
            folded = decided in FOLDED_LABELS and case.label not in FOLDED_LABELS
            superseded = decided == "update" and case.label in ("new", "contradiction")
            total += LOSES_A_CLAIM if folded or superseded else 1
    return total


def decide(case: Case, thresholds: Thresholds) -> WriteLabel:
    """What the write path makes of the pair (one old memory, then the new statement),
    as `WritePath.write` decides it; a test holds the two together on the whole set."""
    if case.cosine < thresholds.related_threshold:
        return "new"
    judgement = settle(case.rules, case.cosine, thresholds)
    if judgement.verdict in FOLDS and case.apart is not None:
        judgement = case.apart
    verdict = judgement.verdict
    if verdict == "distinct":
        return "new"
    if verdict in ("update", "contradiction"):
        return verdict
    duplicate = verdict == "repeat" or case.cosine >= thresholds.duplicate_threshold
    return "duplicate" if duplicate else "reinforce"


def _best_value(
    cases: Sequence[Case], current: Thresholds, name: str, values: list[float], anchor: float
) -> Thresholds:
    scored = [
        (cost(cases, replace(current, **{name: value})), abs(value - anchor), value)
        for value in values
    ]
    _, _, value = min(scored)
    return replace(current, **{name: value})
