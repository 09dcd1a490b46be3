"""Statements then and now → operations: moves are no change, edits pair by similarity,
removals retire before anything is added."""

from __future__ import annotations

from typing import Any

from cortex_tui.sync.diff import diff_notes
from cortex_tui.sync.notes import Note, parse_notes
from cortex_tui.sync.state import TakenNote


def draft(note: Note) -> dict[str, Any]:
    return {"content": note.text, "source": f"sync:k:{note.line}@{note.sha}"}


def taken(text: str) -> list[TakenNote]:
    return diff_notes([], parse_notes(text), draft).taken


def test_a_first_pass_adds_every_statement() -> None:
    diff = diff_notes([], parse_notes("- a fact\n- another one\n"), draft)
    assert (diff.added, diff.edited, diff.retired) == (2, 0, 0)
    assert [op["op"] for op in diff.ops] == ["add", "add"]
    assert [t.source for t in diff.taken] == [op["draft"]["source"] for op in diff.ops]


def test_moved_statements_keep_their_memory() -> None:
    before = taken("# A\n- The database is Postgres 16.\n# B\n- Deploys run on Fly.\n")
    diff = diff_notes(
        before, parse_notes("# B\n- Deploys run on Fly.\n\n- The database is Postgres 16.\n"), draft
    )
    assert not diff.changed
    assert {t.source for t in diff.taken} == {t.source for t in before}


def test_an_edit_pairs_with_the_statement_it_rewrites_and_retirements_come_first() -> None:
    before = taken("- The database is Postgres 15.\n- Deploys run on Fly.\n- Remove me later\n")
    now = parse_notes("- Deploys run on Fly.\n- The database is Postgres 16.\n- Lunch is at noon\n")
    diff = diff_notes(before, now, draft)
    assert [op["op"] for op in diff.ops] == ["retire", "edit", "add"]
    retire, edit, add = diff.ops
    assert retire["was"] == before[2].source
    assert edit["was"] == before[0].source and edit["draft"]["content"].endswith("16.")
    assert add["draft"]["content"] == "Lunch is at noon"
    assert (diff.added, diff.edited, diff.retired) == (1, 1, 1)


def test_a_repeated_statement_removed_once_retires_the_second_copy() -> None:
    before = taken("- Use ruff\n- other\n- Use ruff\n")
    diff = diff_notes(before, parse_notes("- Use ruff\n- other\n"), draft)
    assert diff.ops == [{"op": "retire", "was": before[2].source}]


def test_a_large_rewrite_pairs_statement_by_statement(monkeypatch: Any) -> None:
    from cortex_tui.sync import diff as module

    monkeypatch.setattr(module, "PAIRING_CELLS", 1)
    before = taken("- The port is 8080\n- The host is atlas\n")
    diff = diff_notes(before, parse_notes("- The host is atlas-2\n- The port is 8081\n"), draft)
    assert sorted(op["was"] for op in diff.ops) == sorted(t.source for t in before)
    assert {op["op"] for op in diff.ops} == {"edit"}
