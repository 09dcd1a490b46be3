"""Each embedder gets write-path thresholds that fit its own cosines: the default model
keeps the configured values, any other model's are fitted on the shipped calibration
set and kept in the models folder, and a threshold the person set stays theirs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import WritePathConfig, load_settings
from cortex_tui.embed import calibration as kept
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.calibration import (
    REFERENCES,
    THRESHOLDS,
    WriteCalibration,
    calibration_set,
    default_thresholds,
    forget,
    pair_cosines,
    stored,
)
from cortex_tui.engine.open import open_engine
from cortex_tui.write import calibration
from cortex_tui.write.calibration import (
    Thresholds,
    calibrated,
    cases_of,
    cost,
    decide,
    fit,
    judge_fingerprint,
)
from tests.conftest import NOW, Cli

CORPUS = Path(__file__).resolve().parents[1] / "data" / "pairs" / "write-path-pairs.json"


def test_the_shipped_set_records_the_default_models_cosines(onnx_embedder: Embedder) -> None:
    """The reference cosines are today's default model's (a default model that embeds
    differently fails here until `tests/data/pairs/write_calibration.py` runs again),
    and the pairs are the corpus's development part with their labels."""
    shipped = calibration_set()
    assert shipped.reference == onnx_embedder.name and shipped.reference in REFERENCES
    dev = [
        (p["old"], p["new"], p["label"])
        for p in json.loads(CORPUS.read_text())["pairs"]
        if p["part"] == "dev"
    ]
    assert [(old, new, label) for old, new, label, _ in shipped.pairs] == dev
    measured = pair_cosines(onnx_embedder, shipped.pairs)
    assert max(abs(m - p[3]) for m, p in zip(measured, shipped.pairs, strict=True)) < 2e-3


def test_the_simulated_write_path_decides_as_the_real_one(onnx_cli: Cli) -> None:
    """`engine/calibration.decide` stands for `WritePath.write` on one pair: with the
    default model's cosines and thresholds it must make the real eval's decisions."""
    run = onnx_cli("eval", str(CORPUS), "--json")
    assert run.code == 0, run.err
    [pairs] = json.loads(run.out)["pairs"]
    real_errors = pairs["parts"]["dev"]["pairs"] - pairs["parts"]["dev"]["correct"]
    cases = cases_of(calibration_set().pairs, [c for *_, c in calibration_set().pairs])
    simulated = sum(
        decide(case, Thresholds(**default_thresholds())) != case.label for case in cases
    )
    assert simulated == real_errors


@pytest.fixture
def onnx_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", embedder="onnx")


def test_the_reference_is_not_refitted(onnx_embedder: Embedder, tmp_path: Path) -> None:
    config = WritePathConfig(restate_threshold=0.66)
    assert calibrated(config, onnx_embedder, tmp_path / "models") is config
    assert not (tmp_path / "models").exists()


def test_a_fit_makes_no_more_costly_mistakes_than_the_default_values(
    hashing_embedder: Embedder,
) -> None:
    """On the hashing embedder's cosines the fitted thresholds cost at most what the
    default model's numbers cost there (they start from those ranks and only improve)."""
    fitted = fit(hashing_embedder)
    pairs = calibration_set().pairs
    cases = cases_of(pairs, pair_cosines(hashing_embedder, pairs))
    mine = Thresholds(**{n: getattr(fitted, n) for n in THRESHOLDS})
    assert cost(cases, mine) <= cost(cases, Thresholds(**default_thresholds()))
    assert mine.related_threshold < mine.restate_threshold <= 1


def test_another_model_gets_its_own_kept_and_reused(
    hashing_embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    config = calibrated(WritePathConfig(), hashing_embedder, models)
    mine = stored(models, hashing_embedder.name, judge_fingerprint())
    assert mine is not None and mine.embedder == hashing_embedder.name
    assert [getattr(config, n) for n in THRESHOLDS] == [getattr(mine, n) for n in THRESHOLDS]
    assert config.restate_threshold != WritePathConfig().restate_threshold

    def never(_: Embedder) -> WriteCalibration:
        raise AssertionError("a kept calibration is read, not fitted again")

    monkeypatch.setattr(calibration, "fit", never)
    assert calibrated(WritePathConfig(), hashing_embedder, models) == config


def test_a_threshold_the_person_set_is_kept(hashing_embedder: Embedder, tmp_path: Path) -> None:
    config = calibrated(
        WritePathConfig(change_threshold=0.9), hashing_embedder, tmp_path / "models"
    )
    assert config.change_threshold == 0.9
    assert config.restate_threshold != WritePathConfig().restate_threshold


def test_a_damaged_calibration_is_fitted_again_and_a_removed_model_forgets_it(
    hashing_embedder: Embedder, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    first = calibrated(WritePathConfig(), hashing_embedder, models)
    [path] = (models / kept.FOLDER).glob("*.json")
    path.write_text('{"embedder": "hashing:v1:384", "duplicate_thr')
    assert stored(models, hashing_embedder.name, judge_fingerprint()) is None
    assert calibrated(WritePathConfig(), hashing_embedder, models) == first
    forget(models, hashing_embedder.name)
    assert stored(models, hashing_embedder.name, judge_fingerprint()) is None


def test_a_calibration_fitted_by_another_judge_is_fitted_again(
    hashing_embedder: Embedder, tmp_path: Path
) -> None:
    """The rules' verdicts decide where each threshold falls: numbers an older judge
    was fitted for are not reused once the rules change."""
    models = tmp_path / "models"
    fitted = calibrated(WritePathConfig(), hashing_embedder, models)
    [path] = (models / kept.FOLDER).glob("*.json")
    older = json.loads(path.read_text()) | {"judge": "an-older-judge", "restate_threshold": 0.99}
    path.write_text(json.dumps(older))
    assert stored(models, hashing_embedder.name, judge_fingerprint()) is None
    assert calibrated(WritePathConfig(), hashing_embedder, models) == fitted
    assert json.loads(path.read_text())["judge"] == judge_fingerprint()


def test_the_judge_fingerprint_changes_with_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any edit of the rules' source gives another fingerprint (read from the package's
    files, so a copy with one rule changed stands in for an upgrade)."""
    package = Path(calibration.__file__).resolve().parents[1]
    copy = tmp_path / "cortex_tui"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    script = (
        "from cortex_tui.write.calibration import judge_fingerprint; print(judge_fingerprint())"
    )

    def fingerprint() -> str:
        run = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(tmp_path)},
        )
        return run.stdout.strip()

    before = fingerprint()
    assert before == judge_fingerprint()
    slots = copy / "write" / "judge" / "slots.py"
    slots.write_text(slots.read_text().replace('"above below, ', '"above below, up down, '))
    assert fingerprint() != before


def test_an_engine_judges_with_its_embedders_thresholds(
    hashing_embedder: Embedder, tmp_path: Path
) -> None:
    settings = load_settings(tmp_path / "home")
    engine = open_engine(settings, clock=frozen_clock(NOW), embedder=hashing_embedder)
    try:
        mine = stored(settings.models_path, hashing_embedder.name, judge_fingerprint())
        assert mine is not None
        assert engine.settings.write.restate_threshold == mine.restate_threshold
    finally:
        engine.close()
