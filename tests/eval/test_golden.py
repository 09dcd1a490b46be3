"""`cortex-tui eval` on the shared datasets with the embedded default model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

SHARED = Path(__file__).resolve().parents[1] / "data" / "eval"  # copies of shared/eval


@pytest.fixture
def onnx_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", embedder="onnx")


def test_shared_datasets_pass_with_the_offline_default(onnx_cli: Cli) -> None:
    """team-retrieval, knowledge-updates and conflicts-and-duplicates, no LLM."""
    r = onnx_cli("eval", str(SHARED), "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    overall = report["overall"]
    assert {d["name"] for d in report["datasets"]} >= {
        "team-retrieval",
        "knowledge-updates",
        "conflicts-and-duplicates",
    }
    assert overall["recall_at"]["5"] == 1.0, r.out
    assert overall["forbidden_hits"] == 0, r.out
    assert overall["expectations"]["passed"] == overall["expectations"]["total"], r.out


def test_eval_reports_metrics_misses_and_expectations(onnx_cli: Cli, tmp_path: Path) -> None:
    dataset = {
        "name": "tiny",
        "now": "2026-06-01T12:00:00Z",
        "memories": [
            {"label": "a", "content": "The atlas API runs on port 8443 behind the gateway."},
            {"label": "b", "content": "Lunch is at noon on Fridays.", "type": "episode"},
            {
                "label": "c",
                "content": "Deploy atlas with `make deploy ENV=prod`.",
                "type": "procedure",
                "project": "atlas",
            },
        ],
        "queries": [
            {"query": "which port does the atlas API use", "relevant": ["a"], "first": "a", "k": 1},
            {"query": "which port does the atlas API use", "relevant": ["b"], "k": 1},
            {"query": "how to deploy atlas", "project": "harbor", "relevant": ["c"], "k": 3},
        ],
        "expect": {"independent": [["a", "b"]], "reinforced": ["a"]},
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(dataset))
    r = onnx_cli("eval", str(path), "--json", "--k", "1,3")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    overall = report["overall"]
    assert overall["queries"] == 3
    assert overall["recall_at"]["1"] == pytest.approx(1 / 3, abs=1e-3)
    assert overall["top1"] == 1.0
    assert overall["expectations"] == {"passed": 1, "total": 2}
    misses = report["datasets"][0]["misses"]
    assert {m["label"] for m in misses} == {"b", "c"}
    excluded = next(m for m in misses if m["label"] == "c")
    assert excluded["rank"] is None and "project atlas" in excluded["why"]
    text = onnx_cli("eval", str(path))
    assert "R@1" in text.out and "R@3" in text.out and "misses (base)" in text.out


def test_invalid_dataset_exits_2_naming_the_field(onnx_cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps({"name": "bad", "now": "2026-06-01T12:00:00Z", "memories": [{"label": "a"}]})
    )
    r = onnx_cli("eval", str(path))
    assert r.code == 2
    assert "memories.0.content" in r.err and r.err.count("\n") == 1
    path.write_text('{"name": "bad",\n "now": }')
    r = onnx_cli("eval", str(path))
    assert r.code == 2 and "bad.json:2" in r.err
