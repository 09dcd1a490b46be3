"""The LongMemEval pairs builder: from knowledge-update questions, the users' own older
and newer sentences, ordered by session date, each with its source, split into the
development questions and the held-out rest; and the result is a pairs dataset that
`cortex-tui eval` reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import Cli

BUILDER = Path(__file__).resolve().parents[1] / "data" / "pairs" / "longmemeval_pairs.py"


def _turn(content: str, evidence: bool = False, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": content, **({"has_answer": True} if evidence else {})}


QUESTIONS = [
    {
        "question_id": "ku-dev",
        "question_type": "knowledge-update",
        "question": "How many pages of my novel have I written?",
        "answer": "120",
        "question_date": "2023/07/01 (Sat) 10:00",
        # listed newest first: the builder orders sessions by their dates
        "haystack_dates": ["2023/06/20 (Tue) 09:00", "2023/05/02 (Tue) 18:30"],
        "haystack_session_ids": ["s-new", "s-old"],
        "haystack_sessions": [
            [
                _turn(
                    "Can you suggest a title? By the way, I've now written 120 pages of my novel.",
                    True,
                ),
                _turn("Congratulations on 120 pages!", role="assistant"),
            ],
            [
                _turn(
                    "I love mornings. Oh, and by the way, I have written 80 pages of my novel.",
                    True,
                ),
                _turn("Do you like tea?"),
            ],
        ],
    },
    {
        "question_id": "ku-held",
        "question_type": "knowledge-update",
        "question": "Where does my sister live?",
        "answer": "Lisbon",
        "question_date": "2023/08/01 (Tue) 10:00",
        "haystack_dates": ["2023/03/01 (Wed) 08:00", "2023/07/15 (Sat) 08:00"],
        "haystack_session_ids": ["h1", "h2"],
        "haystack_sessions": [
            [_turn("My sister lives in Porto, near the river.", True)],
            [_turn("Speaking of family, my sister moved to Lisbon last month.", True)],
        ],
    },
    {
        "question_id": "other",
        "question_type": "single-session-user",
        "question": "What is my dog's name?",
        "answer": "Rex",
        "question_date": "2023/08/01 (Tue) 10:00",
        "haystack_dates": ["2023/03/01 (Wed) 08:00", "2023/07/15 (Sat) 08:00"],
        "haystack_session_ids": ["o1", "o2"],
        "haystack_sessions": [[_turn("My dog is Rex.", True)], [_turn("Rex is 3.", True)]],
    },
]


def test_updates_in_users_own_words_are_paired_by_date(tmp_path: Path) -> None:
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps(QUESTIONS))
    dev_list = tmp_path / "dev.txt"
    dev_list.write_text("# development questions\nku-dev\tknowledge-update\n")
    out = tmp_path / "pairs.json"
    run = subprocess.run(
        [sys.executable, str(BUILDER), str(oracle), str(dev_list), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "2 pairs" in run.stdout
    dataset = json.loads(out.read_text())
    assert dataset["kind"] == "pairs" and dataset["now"] == "2023-08-01T10:00:00Z"
    dev, held = dataset["pairs"]
    assert (dev["id"], dev["part"], dev["label"]) == ("lme-ku-dev-1", "dev", "update")
    assert dev["old"] == "I have written 80 pages of my novel."
    assert dev["new"] == "I've now written 120 pages of my novel."
    assert (dev["old_at"], dev["new_at"]) == ("2023-05-02T18:30:00Z", "2023-06-20T09:00:00Z")
    assert "question ku-dev, sessions s-old → s-new" in dev["source"]
    assert "MIT" in dev["source"]
    assert held["part"] == "heldout"
    assert held["old"] == "My sister lives in Porto, near the river."
    assert held["new"] == "my sister moved to Lisbon last month."

    result = Cli(tmp_path / "home", embedder="onnx")("eval", str(out), "--json")
    assert result.code == 0, result.err
    [figures] = json.loads(result.out)["pairs"]
    assert figures["parts"]["all"]["pairs"] == 2


def test_a_wrong_call_prints_how_to_use_it(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(BUILDER), str(tmp_path / "only-one.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert "longmemeval_pairs.py ORACLE.json DEV_LIST OUT.json" in run.stderr
