"""The capture spool as damage leaves it: torn tails, torn characters, stray records."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_tui.agent_turn.drain import drain_spool
from cortex_tui.spool.durable import Spool, TurnProgress, turn_key


def entry(text: str) -> dict[str, Any]:
    return {"key": turn_key("s", text), "text": text, "session_id": "s"}


@pytest.fixture
def spool(tmp_path: Path) -> Spool:
    return Spool(tmp_path / "spool", logging.getLogger("test.spool"))


def test_an_append_after_a_torn_tail_starts_on_its_own_line(
    spool: Spool, caplog: pytest.LogCaptureFixture
) -> None:
    spool.folder.mkdir(parents=True)
    torn = '{"key": "k1", "text": "café'.encode()[:-1]  # cut inside "é"
    (spool.folder / "turns.jsonl").write_bytes(json.dumps(entry("first")).encode() + b"\n" + torn)

    with caplog.at_level(logging.WARNING):
        assert spool.append(entry("second"))

    assert [e["text"] for e in spool.pending()] == ["first", "second"]
    assert (spool.folder / "quarantine" / "turns.jsonl").read_bytes() == torn + b"\n"
    assert "moved 1 unreadable line(s) of turns.jsonl to quarantine/turns.jsonl" in caplog.text
    assert spool.quarantined() == 1


def test_lines_that_are_not_turns_are_set_aside_and_block_nothing(spool: Spool) -> None:
    spool.folder.mkdir(parents=True)
    lines = [
        json.dumps({"key": "no-text"}),
        "[1, 2]",
        '{"key": "k", "text": "\\ud800 odd"}',
        json.dumps(entry("kept")),
        "not json at all",
    ]
    (spool.folder / "turns.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    pending = spool.pending()

    assert [e["text"] for e in pending] == ["\ufffd odd", "kept"]
    assert spool.quarantined() == 3
    assert spool.pending() == pending  # set aside once, not again


def test_a_damaged_done_list_still_marks_turns_done(spool: Spool) -> None:
    spool.append(entry("one"))
    spool.append(entry("two"))
    (spool.folder / "done.txt").write_bytes(b"\xff\xfe torn-ke")  # no newline
    spool.mark_done(entry("one")["key"])
    assert [e["text"] for e in spool.pending()] == ["two"]


def test_one_turn_that_fails_does_not_hold_back_the_others(spool: Spool) -> None:
    for text in ("alpha", "poison", "gamma"):
        spool.append(entry(text))

    def capture(item: dict[str, Any], _progress: TurnProgress) -> str:
        if item["text"] == "poison":
            raise RuntimeError("cannot capture this one")
        return "ok"

    with pytest.raises(RuntimeError, match="cannot capture this one"):
        drain_spool(spool, capture, logging.getLogger("test.spool"))

    assert [e["text"] for e in spool.pending()] == ["poison"]  # kept for a retry


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=30), min_size=2, max_size=6, unique=True),
    cut=st.integers(min_value=0),
    later=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=3, unique=True),
)
def test_power_loss_in_any_byte_of_a_write_loses_no_acknowledged_turn(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], cut: int, later: list[str]
) -> None:
    """The last write is cut at an arbitrary byte (it was never acknowledged); every
    turn written before it and every turn appended after it is still pending."""
    later = [text for text in later if text not in texts]
    spool = Spool(tmp_path_factory.mktemp("spool"), logging.getLogger("test.spool"))
    for text in texts:
        spool.append(entry(text))
    data = (spool.folder / "turns.jsonl").read_bytes()
    last_line = len(json.dumps(entry(texts[-1]), ensure_ascii=False).encode()) + 1
    kept_bytes = cut % last_line  # of the last line; all but its newline at most
    (spool.folder / "turns.jsonl").write_bytes(data[: len(data) - last_line + kept_bytes])

    for text in later:
        assert spool.append(entry(text))

    whole_record = kept_bytes == last_line - 1  # only the newline was lost: still a turn
    expected = texts if whole_record else texts[:-1]
    assert [e["text"] for e in spool.pending()] == expected + later
    assert spool.quarantined() == (0 if whole_record or kept_bytes == 0 else 1)


def test_a_captured_turn_leaves_the_spool_while_another_still_waits(tmp_path: Path) -> None:
    """Its text stays on disk no longer than its capture (a pasted key among it)."""
    spool = Spool(tmp_path / "spool", logging.getLogger("tests"))
    spool.append({"key": "captured", "text": "User: the key is AKIAZ3MSJV4WWNKWW5FQ"})
    spool.append({"key": "failing", "text": "User: a turn whose capture keeps failing"})
    spool.mark_done("captured")
    assert b"AKIAZ3MSJV4WWNKWW5FQ" in (tmp_path / "spool" / "turns.jsonl").read_bytes()
    assert spool.compact() == 1
    assert b"AKIA" not in (tmp_path / "spool" / "turns.jsonl").read_bytes()
    assert [e["key"] for e in spool.pending()] == ["failing"]
    assert not spool.append({"key": "captured", "text": "the same turn spooled again"})
