"""LoCoMo's file read directly: turns as memories, evidence as relevant labels, categories.

The data is a synthetic conversation pair in LoCoMo's format (tests/data/locomo), with
the slips the real file has in its evidence ids.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.dataset import Dataset, load_datasets
from tests.conftest import Cli

SYNTHETIC = Path(__file__).resolve().parents[1] / "data" / "locomo" / "synthetic-conversations.json"


def _by_label(dataset: Dataset) -> dict[str, Any]:
    return {m.label: m for m in dataset.memories}


def test_each_conversation_is_a_dataset_of_raw_turns() -> None:
    first, second = load_datasets([SYNTHETIC])
    assert (first.name, second.name) == ("syn-1", "syn-2")
    assert first.ingest == "raw"
    assert len(first.memories) == 21 and len(second.memories) == 7
    turns = _by_label(first)
    adopted = turns["D1:1"]
    assert adopted.content == (
        "Ines: Hi Tomas! I finally adopted a dog last weekend, a grey whippet called Pixel."
    )
    assert adopted.created_at == datetime(2024, 3, 4, 15, 10, tzinfo=UTC)
    assert adopted.session_id == "syn-1:session-1"
    assert (adopted.speaker, adopted.turn, adopted.tags) == ("Ines", 0, [])
    assert turns["D1:5"].turn == 4  # the turn's position in its session
    assert adopted.type is not None and adopted.type.value == "episode"
    assert turns["D2:4"].created_at == datetime(2024, 3, 18, 10, 45, tzinfo=UTC)
    # The photo's caption is part of the turn; the generator's image search query is not.
    photo = turns["D1:5"].content
    assert photo.endswith("[shares a photo: a photo of a grey dog sleeping on a blue sofa]")
    assert "whippet sofa" not in photo
    # The clock is the last session with turns, not a dated session without any.
    assert first.now == datetime(2024, 4, 2, 19, 20, tzinfo=UTC)


def test_questions_carry_evidence_and_named_categories() -> None:
    first, second = load_datasets([SYNTHETIC])
    queries = {q.query: q for q in first.queries}
    assert queries["What breed is Ines's dog?"].relevant == ["D1:1"]
    assert queries["What breed is Ines's dog?"].category == "single-hop"
    assert queries["Which pets do Ines and Tomas's sister keep?"].category == "multi-hop"
    assert queries["When is Ines moving to Porto?"].category == "temporal"
    assert queries["Would Tomas enjoy a trip to Norway?"].category == "open-domain"
    assert queries["What breed is Tomas's dog?"].category == "adversarial"
    # Evidence ids as the real file writes them: two in one string, a stray colon,
    # and one that names no turn (left out and reported).
    assert queries["What did Ines do with Pixel and at work in March?"].relevant == [
        "D2:2",
        "D2:4",
    ]
    assert queries["Which team will Ines lead?"].relevant == ["D3:3"]
    assert queries["Where will Ines live from June?"].relevant == ["D3:1"]
    assert "What might Ines bake for guests?" not in queries  # no evidence: skipped
    assert any("D9:9" in note for note in first.notes)
    assert any("1 question(s)" in note for note in first.notes)
    assert first.apart == ["adversarial"] and first.cutoffs == [5, 10, 25, 50]
    assert second.notes == []


def test_only_picks_conversations_and_names_the_known_ones() -> None:
    (picked,) = load_datasets([SYNTHETIC], only=["syn-2"])
    assert picked.name == "syn-2"
    with pytest.raises(InvalidInputError, match=r"conv-26.*syn-1, syn-2"):
        load_datasets([SYNTHETIC], only=["conv-26"])


def test_a_broken_locomo_file_names_the_conversation_and_field(tmp_path: Path) -> None:
    data = json.loads(SYNTHETIC.read_text())
    del data[1]["conversation"]["session_2_date_time"]
    broken = tmp_path / "locomo10.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"\(syn-2\): field session_2_date_time"):
        load_datasets([broken])
    data[1]["conversation"]["session_2_date_time"] = "yesterday"
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match="'yesterday' is not a time"):
        load_datasets([broken])
    broken.write_text(json.dumps([{"name": "a list of datasets is not a format"}]))
    with pytest.raises(InvalidInputError, match="holds a JSON list"):
        load_datasets([broken])


def test_jsonl_strings_may_hold_unicode_line_separators(tmp_path: Path) -> None:
    """Valid JSONL: U+2028/U+2029 inside a string are not line ends."""
    content = "Chat export line one\u2028line two\u2029and a paragraph"
    dataset = {
        "name": "separators",
        "now": "2026-06-01T12:00:00Z",
        "memories": [{"label": "a", "content": content}],
        "queries": [{"query": "chat export", "relevant": ["a"]}],
    }
    line = json.dumps(dataset, ensure_ascii=False)
    assert "\u2028" in line  # written raw, as chat exports do
    path = tmp_path / "sets.jsonl"
    path.write_text(line + "\r\n" + line.replace("separators", "again") + "\n", encoding="utf-8")
    loaded = load_datasets([path])
    assert [d.name for d in loaded] == ["separators", "again"]
    assert loaded[0].memories[0].content == content


def test_eval_reports_each_category_and_keeps_adversarial_apart(cli: Cli) -> None:
    r = cli("eval", str(SYNTHETIC), "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    categories = report["by_category"]
    assert list(categories) == [
        "multi-hop",
        "open-domain",
        "single-hop",
        "temporal",
        "adversarial",
    ]
    counts = {name: figures["queries"] for name, figures in categories.items()}
    assert counts == {
        "multi-hop": 4,
        "open-domain": 2,
        "single-hop": 7,
        "temporal": 3,
        "adversarial": 2,
    }
    assert categories["adversarial"]["apart"] is True
    assert report["apart"] == ["adversarial"]
    overall = report["overall"]
    assert overall["queries"] == 16  # adversarial questions are not in the overall
    assert list(overall["recall_at"]) == ["5", "10", "25", "50"]
    for figures in categories.values():
        assert list(figures["recall_at"]) == ["5", "10", "25", "50"]
        assert 0 < figures["mrr"] <= 1
    # Overall recall is the mean over the questions of the four counted categories.
    weighted = sum(
        f["recall_at"]["10"] * f["queries"] for f in categories.values() if not f["apart"]
    )
    assert overall["recall_at"]["10"] == pytest.approx(weighted / 16, abs=1e-3)
    assert [d["name"] for d in report["datasets"]] == ["syn-1", "syn-2"]
    assert any("D9:9" in note for note in report["notes"])
    timing = report["timing"]
    assert timing["embedding_seconds"] > 0 and set(timing["variant_seconds"]) == {"base"}

    text = cli("eval", str(SYNTHETIC))
    assert text.code == 0, text.err
    assert "base by category" in text.out
    assert "adversarial (apart)" in text.out
    assert "kept apart from these figures: adversarial (2 queries)" in text.out
    assert "note: syn-1: 1 evidence id(s) name no turn" in text.out
    assert "time: ingest" in text.out and "embedding" in text.out


def test_only_on_the_command_line(cli: Cli) -> None:
    r = cli("eval", str(SYNTHETIC), "--only", "syn-2", "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    assert [d["name"] for d in report["datasets"]] == ["syn-2"]
    assert report["overall"]["queries"] == 4
    r = cli("eval", str(SYNTHETIC), "--only", "conv-26")
    assert r.code == 2
    assert r.err.count("\n") == 1 and "syn-1, syn-2" in r.err


def test_link_entities_gives_raw_turns_the_links_capture_would(cli: Cli) -> None:
    plain = json.loads(cli("eval", str(SYNTHETIC), "--only", "syn-1", "--json").out)
    assert not any("linked to" in note for note in plain["notes"])
    r = cli("eval", str(SYNTHETIC), "--only", "syn-1", "--link-entities", "--json")
    assert r.code == 0, r.err
    [note] = [note for note in json.loads(r.out)["notes"] if "linked to" in note]
    figures = re.fullmatch(r"syn-1: (\d+) of (\d+) memories linked to (\d+) entities", note)
    assert figures is not None, note
    linked, total, entities = map(int, figures.groups())
    assert 0 < linked < total and entities > 0
