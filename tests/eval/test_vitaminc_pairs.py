"""The VitaminC pairs builder: BIG-bench's VitaminC task read as write-path pairs — a
revision that turns a claim from supported to refuted is a contradiction, a supported
claim a reinforcement, a refuted one a contradiction, an unresolved one new — with
Wikipedia's tokenisation undone, every page in one part, each pair with its source; and
the result is a pairs dataset that `cortex-tui eval` reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import Cli

BUILDER = Path(__file__).resolve().parents[1] / "data" / "pairs" / "vitaminc_pairs.py"


def _example(title: str, evidence: str, claim: str, verdict: str) -> dict[str, Any]:
    scores = {"True": 0, "False": 0, "Neither": 0} | {verdict: 1}
    return {"input": f"{title}: {evidence}\nClaim: {claim}", "target_scores": scores}


EXAMPLES = [
    _example(
        "Westlife",
        "Westlife has sold more than 23 million records in the UK ( BPI ) .",
        "Westlife sold over 20 million records in the UK .",
        "True",
    ),
    _example(
        "Westlife",
        "Westlife has sold more than 19 million records in the UK ( BPI ) .",
        "Westlife sold over 20 million records in the UK .",
        "False",
    ),
    _example(
        "Westlife",
        "Westlife has sold more than 23 million records in the UK ( BPI ) .",
        "Westlife toured Asia in 2001 .",
        "Neither",
    ),
    _example(
        "Tangled",
        "Tangled is a 2010 film by Walt Disney Animation Studios .",
        "Tangled was released before 2012 .",
        "True",
    ),
    _example(
        "Tangled",
        "Tangled is a 2013 film by Walt Disney Animation Studios .",
        "Tangled was released before 2012 .",
        "False",
    ),
]


def _build(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    task = tmp_path / "task.json"
    task.write_text(json.dumps({"name": "vitaminc_fact_verification", "examples": EXAMPLES}))
    out = tmp_path / "pairs.json"
    run = subprocess.run(
        [sys.executable, str(BUILDER), str(task), str(out), *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    return run, out


def test_revisions_and_claims_become_labelled_pairs(tmp_path: Path) -> None:
    run, out = _build(tmp_path)
    assert run.returncode == 0, run.stderr
    dataset = json.loads(out.read_text())
    assert dataset["kind"] == "pairs" and "CC BY-SA 3.0" in dataset["description"]
    pairs = dataset["pairs"]
    assert len(pairs) == 7  # five claims, two revisions
    by_kind: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pair in pairs:
        by_kind.setdefault((pair["id"].split("-")[2], pair["label"]), []).append(pair)
    assert {kind: len(found) for kind, found in by_kind.items()} == {
        ("true", "reinforce"): 2,
        ("false", "contradiction"): 2,
        ("neither", "new"): 1,
        ("revision", "contradiction"): 2,
    }
    revision = next(p for p in by_kind[("revision", "contradiction")] if "Westlife" in p["old"])
    assert revision["old"] == "Westlife has sold more than 23 million records in the UK (BPI)."
    assert revision["new"] == "Westlife has sold more than 19 million records in the UK (BPI)."
    assert revision["phrasing"] == "wikipedia revision"
    assert "page 'Westlife'" in revision["source"] and "bigbench==1.0.0" in revision["source"]
    for page in ("Westlife", "Tangled"):  # a page never straddles the parts
        assert len({p["part"] for p in pairs if f"page {page!r}" in p["source"]}) == 1

    result = Cli(tmp_path / "home", embedder="onnx")("eval", str(out), "--json")
    assert result.code == 0, result.err
    [figures] = json.loads(result.out)["pairs"]
    parts = {name: part["pairs"] for name, part in figures["parts"].items() if name != "all"}
    assert sum(parts.values()) == 7 and set(parts) <= {"dev", "heldout"}


def test_one_part_and_a_cap_per_kind(tmp_path: Path) -> None:
    run, out = _build(tmp_path, "--part", "dev", "--per-kind", "1")
    assert run.returncode == 0, run.stderr
    pairs = json.loads(out.read_text())["pairs"]
    assert pairs and all(p["part"] == "dev" for p in pairs)
    kinds = [p["id"].split("-")[2] for p in pairs]
    assert len(kinds) == len(set(kinds))


def test_an_unreadable_task_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    run = subprocess.run(
        [sys.executable, str(BUILDER), str(missing), str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert f"cannot read {missing}" in run.stderr and "VitaminC task.json" in run.stderr
