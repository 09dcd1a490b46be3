"""LongMemEval's file read directly: a dataset per question, turns as memories, evidence
turns as relevant labels, question types as categories, abstention questions skipped.

The data is hand-written in LongMemEval's format (tests/data/longmemeval).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.dataset import Dataset, load_datasets
from tests.conftest import Cli

DATA = Path(__file__).resolve().parents[1] / "data" / "longmemeval"
SYNTHETIC = DATA / "synthetic-questions.json"
PICKED = DATA / "picked-questions.txt"


def _loaded(**kwargs: object) -> list[Dataset]:
    datasets = load_datasets([SYNTHETIC], **kwargs)  # type: ignore[arg-type]
    assert all(isinstance(d, Dataset) for d in datasets)
    return [d for d in datasets if isinstance(d, Dataset)]


def test_each_question_is_a_dataset_of_its_haystack_turns() -> None:
    user, temporal = _loaded()
    assert (user.name, temporal.name) == ("syn-user-1", "syn-temporal-1")
    assert user.ingest == "raw" and user.cutoffs == [5, 10, 25, 50]
    # The question's date is the clock; every turn is dated at its session.
    assert user.now == datetime(2023, 5, 30, 23, 40, tzinfo=UTC)
    turns = {m.label: m for m in user.memories}
    degree = turns["S2:1"]
    assert degree.content.startswith("I'm updating my CV. I graduated with a degree")
    assert degree.created_at == datetime(2023, 5, 22, 10, 0, tzinfo=UTC)
    assert (degree.speaker, degree.session_id, degree.turn) == ("user", "answer_1", 0)
    assert turns["S2:2"].speaker == "assistant" and turns["S2:2"].turn == 1
    assert "S2:3" not in turns  # an empty turn is no memory
    assert len(user.memories) == 8
    assert user.memories[0].type is not None and user.memories[0].type.value == "episode"


def test_evidence_is_the_marked_turns_or_every_turn_of_an_unmarked_answer_session() -> None:
    user, temporal = _loaded()
    [question] = user.queries
    assert question.query == "What degree did I graduate with?"
    assert question.relevant == ["S2:1"]  # only the marked turn of its answer session
    assert question.category == "single-session-user"
    [question] = temporal.queries
    # Neither answer session marks a turn: all their turns are evidence, none of the other.
    assert question.relevant == ["S1:1", "S1:2", "S3:1", "S3:2"]
    assert question.category == "temporal-reasoning"


def test_abstention_questions_are_skipped_with_a_note() -> None:
    datasets = _loaded()
    assert "syn-user-1_abs" not in [d.name for d in datasets]
    assert any("1 question(s) without evidence" in note for note in datasets[0].notes)


def test_only_takes_question_ids_or_a_file_listing_them() -> None:
    (picked,) = _loaded(only=["syn-temporal-1"])
    assert picked.name == "syn-temporal-1"
    # The file's first word of each line, comments and blank lines skipped; the
    # abstention question it names is a known name, skipped as it always is.
    (picked,) = _loaded(only=[str(PICKED)])
    assert picked.name == "syn-temporal-1"
    with pytest.raises(InvalidInputError, match=r"no dataset called nope.*syn-temporal-1"):
        _loaded(only=["nope"])


def test_a_broken_file_names_the_question_and_field(tmp_path: Path) -> None:
    data = json.loads(SYNTHETIC.read_text())
    data[1]["haystack_dates"][0] = "last Sunday"
    broken = tmp_path / "longmemeval_s.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"\(syn-temporal-1\): date 'last Sunday'"):
        load_datasets([broken])
    data[1]["haystack_dates"] = data[1]["haystack_dates"][:2]
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match="differ in length"):
        load_datasets([broken])


def test_eval_reports_per_type_share_and_all_evidence_found(cli: Cli) -> None:
    r = cli("eval", str(SYNTHETIC), "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    categories = report["by_category"]
    assert list(categories) == ["single-session-user", "temporal-reasoning"]
    assert report["overall"]["queries"] == 2
    for figures in categories.values():
        share, whole = figures["recall_at"], figures["complete_at"]
        assert list(share) == list(whole) == ["5", "10", "25", "50"]
        # Every turn is in the top 50 of a haystack this small.
        assert share["50"] == whole["50"] == 1.0
    # Four evidence turns: the question counts as all found only if all four are in.
    temporal = categories["temporal-reasoning"]
    assert temporal["complete_at"]["5"] == float(temporal["recall_at"]["5"] == 1.0)

    text = cli("eval", str(SYNTHETIC), "--only", str(PICKED))
    assert text.code == 0, text.err
    assert "A@10" in text.out and "temporal-reasoning" in text.out
    assert "A@k: % of queries with all their relevant memories in the top k" in text.out


def test_memory_vectors_are_kept_between_runs_unless_told(cli: Cli) -> None:
    first = json.loads(cli("eval", str(SYNTHETIC), "--json").out)
    cache = cli.home / "cache" / "eval-vectors.sqlite"
    with sqlite3.connect(cache) as db:
        (rows,) = db.execute("SELECT count(*) FROM vectors").fetchone()
    assert rows == 12  # every distinct turn text of both haystacks, once
    again = json.loads(cli("eval", str(SYNTHETIC), "--json").out)
    assert again["by_category"] == first["by_category"]  # the same vectors, the same ranks
    cache.unlink()
    fresh = cli("eval", str(SYNTHETIC), "--no-vector-cache", "--json")
    assert fresh.code == 0, fresh.err
    assert json.loads(fresh.out)["by_category"] == first["by_category"]
    assert not cache.exists()


def test_through_capture_plays_each_haystack_as_a_users_hooks_would(
    cli: Cli, tmp_path: Path
) -> None:
    kept = tmp_path / "kept"
    memories_alone = "memories:archive.enabled=false"
    r = cli(
        "--home", str(kept), "eval", str(SYNTHETIC), "--through-capture", "--json",
        "--variant", memories_alone,
    )  # fmt: skip
    assert r.code == 0, r.err
    report = json.loads(r.out)
    # The same stores read without the archive: what capture's memories alone hold.
    assert [v["name"] for v in report["variants"]] == ["base", "memories"]
    # Every question's evidence is found through what capture kept of its turns: in a
    # haystack this small, all of it is in the top 50 (a turn nothing held ranks nowhere).
    for figures in report["by_category"].values():
        assert figures["recall_at"]["50"] == 1.0
    stored = Cli(kept / "eval" / "syn-user-1")
    sessions = json.loads(stored("sessions", "--json").out)
    newest_first = ["sharegpt_c", "sharegpt_b", "answer_1", "sharegpt_a"]
    assert [s["session_id"] for s in sessions] == newest_first
    # Each exchange was captured at its session's date, the person's turn and its reply.
    assert sessions[2]["first_said"].startswith("2023-05-22T10:00")
    said = json.loads(stored("sessions", "show", "answer_1", "--json").out)
    assert [m["speaker"] for m in said] == ["user", "assistant"]


def test_through_capture_refuses_what_is_no_conversation_of_a_person_and_an_assistant(
    cli: Cli,
) -> None:
    locomo = DATA.parent / "locomo" / "synthetic-conversations.json"  # speakers are names
    refused = cli("eval", str(locomo), "--through-capture")
    assert refused.code != 0 and refused.err.count("\n") == 1
    assert "--through-capture" in refused.err and "leave the flag out" in refused.err
