"""`cortex-tui eval` on pairs datasets: each pair through the real write path, figures
per part, the confusion matrix, variants over the write path's thresholds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.write.tiny_pair_model import write_pair_model

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "pairs" / "write-path-pairs.json"
LABELS = ["duplicate", "reinforce", "update", "contradiction", "new"]
NLI = ("entailment", "neutral", "contradiction")


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
    assert parts["all"]["folds"] == 0
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
    today's figures (96.3 / 90.2), so a change that breaks judgement fails. One pair of
    different claims is still folded, and no more may be: "We're vegetarian at home" /
    "We eat meat most days at home" differ only in what the words mean."""
    r = onnx_cli("eval", str(CORPUS), "--json")
    assert r.code == 0, r.err
    [run] = json.loads(r.out)["pairs"]
    parts = run["parts"]
    assert parts["all"]["pairs"] >= 500
    assert parts["all"]["folds"] <= 1, [m for m in run["misses"] if m["decided"] == "reinforce"]
    assert parts["dev"]["accuracy"] >= 0.95, parts["dev"]
    assert parts["heldout"]["accuracy"] >= 0.9, parts["heldout"]
    for part in ("dev", "heldout"):
        for label in LABELS:
            assert parts[part]["classes"][label]["recall"] >= 0.8, (part, label, parts[part])


def test_updates_in_users_own_words_are_never_folded(onnx_cli: Cli) -> None:
    """LongMemEval's development updates: long sentences in users' own words. None may
    fold into the older statement; the updates found are a floor under today's 5 of 13
    (running totals that grew: months of use, pages read, episodes watched)."""
    r = onnx_cli("eval", str(DATA / "pairs" / "longmemeval-updates-dev.json"), "--json")
    assert r.code == 0, r.err
    [run] = json.loads(r.out)["pairs"]
    dev = run["parts"]["dev"]
    assert dev["folds"] == 0, run["misses"]
    assert dev["classes"]["update"]["recall"] >= 0.38, run["misses"]


def test_wikipedia_revisions_and_claims_rarely_fold(onnx_cli: Cli) -> None:
    """VitaminC's development pairs: Wikipedia sentences, their revisions and
    annotators' claims. Floors and ceilings at today's figures, so a change that folds
    more of them or finds fewer contradictions fails here: at most 14 folds of 300
    different claims, contradictions found in at least 1 in 5."""
    r = onnx_cli("eval", str(DATA / "pairs" / "vitaminc-dev.json"), "--json")
    assert r.code == 0, r.err
    [run] = json.loads(r.out)["pairs"]
    dev = run["parts"]["dev"]
    assert dev["pairs"] == 400
    assert dev["folds"] <= 14, run["misses"]
    assert dev["classes"]["contradiction"]["recall"] >= 0.2, run["misses"]


CLOSE = [
    {
        # The rules find different claims, the embeddings a close pair (0.72).
        "id": "train",
        "part": "dev",
        "label": "reinforce",
        "old": "The release train leaves every second Tuesday.",
        "new": "We ship a release train on alternate Tuesdays.",
    },
    {
        # Another value for a claim the embeddings barely relate (0.52).
        "id": "lead",
        "part": "dev",
        "label": "contradiction",
        "old": "Priya leads the platform team.",
        "new": "Marco leads the platform team.",
    },
    {
        "id": "port",
        "part": "heldout",
        "label": "update",
        "old": "The API runs on port 8443.",
        "new": "The API moved to port 9000.",
    },
]


def test_close_calls_under_replayed_llms_and_a_pair_model(onnx_cli: Cli, tmp_path: Path) -> None:
    model = write_pair_model(tmp_path / "nli", NLI, {"alternate": {"entailment": 5.0}})
    r = onnx_cli(
        "eval",
        str(_pairs(tmp_path, CLOSE)),
        "--llm-replay",
        "oracle,contrary",
        "--variant",
        f"pair:write.pair_model={model}",
        "--json",
    )
    assert r.code == 0, r.err
    runs = {run["variant"]: run for run in json.loads(r.out)["pairs"]}
    assert list(runs) == ["base", "pair", "llm-oracle-replay", "llm-contrary-replay"]
    base = runs["base"]["close_calls"]
    assert (base["pairs"], base["errors_inside"], base["errors"]) == (2, 1, 1)
    assert base["judges"] == {"rules": 2}
    oracle = runs["llm-oracle-replay"]
    assert oracle["parts"]["all"]["accuracy"] == 1.0
    assert oracle["close_calls"]["judges"] == {"anthropic:oracle-replay": 2}
    contrary = runs["llm-contrary-replay"]
    assert contrary["close_calls"]["accuracy"] == 0.0
    assert contrary["parts"]["heldout"]["accuracy"] == 1.0  # the clear update is the rules'
    pair = runs["pair"]
    assert pair["parts"]["all"]["accuracy"] == 1.0
    assert pair["close_calls"]["judges"] == {"pair model tiny-nli": 1, "rules": 1}
    text = onnx_cli("eval", str(_pairs(tmp_path, CLOSE)), "--llm-replay", "oracle")
    assert text.code == 0, text.err
    assert "close calls: 2 pairs (66.7 %), holding 1 of the 1 errors" in text.out
    assert "llm-*-replay: the LLM's answers are replayed over a mock transport" in text.out
    assert "  llm-oracle-replay " in text.out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--llm-replay", "maybe"], "--llm-replay 'maybe': give oracle or contrary"),
        (
            [str(DATA / "eval" / "team-retrieval.json"), "--llm-replay", "oracle"],
            "run pairs datasets alone",
        ),
    ],
)
def test_a_wrong_llm_replay_is_named(
    onnx_cli: Cli, tmp_path: Path, extra: list[str], message: str
) -> None:
    r = onnx_cli("eval", str(_pairs(tmp_path, CLOSE[:1])), *extra)
    assert r.code == 2 and r.err.count("\n") == 1, r.err
    assert message in r.err
