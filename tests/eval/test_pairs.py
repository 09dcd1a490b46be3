"""`cortex-tui eval` on pairs datasets: each pair through the real write path, figures
per part, the confusion matrix, variants over the write path's thresholds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "pairs" / "write-path-pairs.json"
LABELS = ["duplicate", "reinforce", "update", "contradiction", "new"]


@pytest.fixture
def onnx_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", embedder="onnx")


def _pairs(tmp_path: Path, pairs: list[dict[str, Any]]) -> Path:
    path = tmp_path / "pairs.json"
    dataset = {"kind": "pairs", "name": "tiny", "now": "2026-06-01T12:00:00Z", "pairs": pairs}
    path.write_text(json.dumps(dataset))
    return path


TINY = [
    {
        "id": "a",
        "part": "dev",
        "label": "duplicate",
        "old": "Lunch is at noon.",
        "new": "Lunch is at noon",
    },
    {
        "id": "b",
        "part": "dev",
        "label": "contradiction",
        "old": "The API runs on port 8443.",
        "new": "The API runs on port 9000.",
    },
    {
        "id": "c",
        "part": "heldout",
        "label": "update",
        "old": "The API runs on port 8443.",
        "new": "The API moved to port 9000.",
    },
    {
        # Labelled wrongly on purpose: the write path must not agree, and the miss
        # must show up in the figures.
        "id": "d",
        "part": "heldout",
        "label": "duplicate",
        "old": "My sister lives in Oslo.",
        "new": "The build uses Bazel.",
    },
]


def test_pairs_report_accuracy_per_part_confusion_and_misses(onnx_cli: Cli, tmp_path: Path) -> None:
    r = onnx_cli("eval", str(_pairs(tmp_path, TINY)), "--json")
    assert r.code == 0, r.err
    [run] = json.loads(r.out)["pairs"]
    parts = run["parts"]
    assert list(parts) == ["dev", "heldout", "all"]
    assert (parts["dev"]["pairs"], parts["dev"]["correct"], parts["dev"]["accuracy"]) == (2, 2, 1.0)
    assert (parts["heldout"]["correct"], parts["all"]["accuracy"]) == (1, 0.75)
    confusion = parts["all"]["confusion"]
    assert confusion["duplicate"] == {
        "duplicate": 1,
        "reinforce": 0,
        "update": 0,
        "contradiction": 0,
        "new": 1,
    }
    assert parts["all"]["classes"]["duplicate"] == {"support": 2, "precision": 1.0, "recall": 0.5}
    assert parts["all"]["classes"]["new"]["precision"] == 0.0
    assert [(m["id"], m["expected"], m["decided"]) for m in run["misses"]] == [
        ("d", "duplicate", "new")
    ]
    text = onnx_cli("eval", str(_pairs(tmp_path, TINY)))
    assert text.code == 0, text.err
    assert "expected ↓ decided →" in text.out
    assert "d        heldout  duplicate → new" in text.out


def test_variants_sweep_the_write_path_thresholds(onnx_cli: Cli, tmp_path: Path) -> None:
    path = _pairs(tmp_path, TINY[1:3])  # a contradiction and an update: cosine under 1
    r = onnx_cli("eval", str(path), "--variant", "blind:write.related_threshold=1.0", "--json")
    assert r.code == 0, r.err
    runs = {run["variant"]: run for run in json.loads(r.out)["pairs"]}
    # The variant re-runs the write path with its own band: judging no neighbour at
    # all, it stores both pairs' statements as new memories.
    assert runs["base"]["parts"]["all"]["accuracy"] == 1.0
    assert runs["blind"]["parts"]["all"]["accuracy"] == 0.0
    assert {m["decided"] for m in runs["blind"]["misses"]} == {"new"}
    mixed = onnx_cli(
        "eval",
        str(path),
        str(DATA / "eval" / "team-retrieval.json"),
        "--variant",
        "x:write.related_threshold=0.5",
    )
    assert mixed.code == 2
    assert mixed.err.count("\n") == 1 and "write.related_threshold" in mixed.err


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"label": "supersede"}, "pairs.0.label"),
        ({"old": ""}, "pairs.0.old"),
    ],
)
def test_a_bad_pair_is_named(
    onnx_cli: Cli, tmp_path: Path, change: dict[str, str], field: str
) -> None:
    path = _pairs(tmp_path, [{**TINY[0], **change}])
    r = onnx_cli("eval", str(path))
    assert r.code == 2 and r.err.count("\n") == 1, r.err
    assert f"field {field}" in r.err


def test_a_repeated_pair_id_is_named(onnx_cli: Cli, tmp_path: Path) -> None:
    r = onnx_cli("eval", str(_pairs(tmp_path, [TINY[0], TINY[0]])))
    assert r.code == 2 and "pair id 'a' is used twice" in r.err, r.err


def test_the_project_corpus_stays_decided_well(onnx_cli: Cli) -> None:
    """The labelled corpus (530 pairs, a fifth held out from tuning) through the offline
    judge: the issue's goal (90% on each part, no class under 80%) as a floor just under
    today's figures (97.0 / 92.2), so a change that breaks judgement fails."""
    r = onnx_cli("eval", str(CORPUS), "--json")
    assert r.code == 0, r.err
    [run] = json.loads(r.out)["pairs"]
    parts = run["parts"]
    assert parts["all"]["pairs"] >= 500
    assert parts["dev"]["accuracy"] >= 0.95, parts["dev"]
    assert parts["heldout"]["accuracy"] >= 0.9, parts["heldout"]
    for part in ("dev", "heldout"):
        for label in LABELS:
            assert parts[part]["classes"][label]["recall"] >= 0.8, (part, label, parts[part])
