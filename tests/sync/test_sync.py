"""`sync` end to end on real files and a real store: what is taken in, once."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from cortex_tui.agent_turn.drain import capture_turn
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.errors import InvalidInputError
from cortex_tui.models import MemoryType
from cortex_tui.spool.durable import Offsets, Spool
from cortex_tui.sync import files
from cortex_tui.sync.run import sync_paths
from cortex_tui.sync.state import StateStore
from tests.conftest import make_engine
from tests.sync.conftest import Syncer

MEMORY = """# Atlas

## Conventions
- Every API change needs a changelog entry.
- Tabs are banned in Python files.

## Decisions
- The staging database is Postgres 15.
- Deploys go to the Amsterdam region.
"""


def notes(folder: Path, name: str = "MEMORY.md", text: str = MEMORY) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_first_sync_stores_each_statement_and_a_second_adds_nothing(
    syncer: Syncer, tmp_path: Path
) -> None:
    path = notes(tmp_path / "notes")
    first = syncer.sync(path.parent)
    assert [c.describe() for c in first.changes] == [f"{path}: 4 new"]
    stored = syncer.memories()
    assert [m.content for m in stored] == [
        "Deploys go to the Amsterdam region.",
        "Every API change needs a changelog entry.",
        "Tabs are banned in Python files.",
        "The staging database is Postgres 15.",
    ]
    by_content = {m.content: m for m in stored}
    rule = by_content["Every API change needs a changelog entry."]
    assert rule.type is MemoryType.RULE and rule.tags == ["atlas", "conventions"]
    assert rule.source.startswith(f"sync:{path}:4@")
    assert by_content["The staging database is Postgres 15."].type is MemoryType.FACT

    again = syncer.sync(path.parent)
    assert again.keys == [] and again.unchanged == 1 and again.changes == []
    os.utime(path)  # touched, not changed: read, found equal, nothing spooled
    assert syncer.sync(path.parent).keys == []
    assert len(syncer.memories(everything=True)) == 4


def test_an_edit_updates_with_history_and_a_removed_line_retires(
    syncer: Syncer, tmp_path: Path
) -> None:
    path = notes(tmp_path)
    syncer.sync(path)
    path.write_text(
        MEMORY.replace("Postgres 15", "Postgres 16").replace(
            "- Tabs are banned in Python files.\n", ""
        )
        + "- The API rate limit is 100 requests a second.\n"
    )
    report = syncer.sync(path)
    assert report.changes[0].describe() == f"{path}: 1 new, 1 edited, 1 retired"
    assert "The staging database is Postgres 16." in syncer.contents()
    assert syncer.history("The staging database is Postgres 16.") == [
        "The staging database is Postgres 15.",
        "The staging database is Postgres 16.",
    ]
    assert syncer.deleted() == ["Tabs are banned in Python files."]
    assert "The API rate limit is 100 requests a second." in syncer.contents()

    path.write_text(path.read_text() + "- Tabs are banned in Python files.\n")
    syncer.sync(path)  # written again: stored again, the retired one stays retired
    assert "Tabs are banned in Python files." in syncer.contents()


def test_a_renamed_file_is_recognised_by_content(syncer: Syncer, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    path = notes(folder)
    syncer.sync(folder)
    renamed = path.rename(folder / "project.md")
    report = syncer.sync(folder)
    assert [c.describe() for c in report.changes] == [f"{renamed}: renamed from {path}"]
    assert report.keys == [] and syncer.deleted() == []
    # renamed and edited at once: still the same file, and the edit an edit
    moved = renamed.rename(folder / "atlas.md")
    moved.write_text(MEMORY.replace("Amsterdam", "Frankfurt"))
    report = syncer.sync(folder)
    assert [c.describe() for c in report.changes] == [f"{moved}: renamed from {renamed}, 1 edited"]
    assert len(syncer.contents()) == 4 and syncer.deleted() == []


def test_a_deleted_notes_file_retires_its_memories(syncer: Syncer, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    path = notes(folder)
    kept = notes(folder, "other.md", "- The on-call rota changes on Mondays.\n")
    syncer.sync(folder)
    path.unlink()
    report = syncer.sync(folder)
    assert [c.describe() for c in report.changes] == [f"{path}: removed, 4 retired"]
    assert syncer.contents() == ["The on-call rota changes on Mondays."]
    assert len(syncer.deleted()) == 4
    kept.unlink()  # a file named on its own that is gone: its memories retire too
    syncer.sync(folder)
    assert syncer.contents() == []


def test_a_lost_state_or_a_pass_cut_short_stores_nothing_twice(
    syncer: Syncer, tmp_path: Path
) -> None:
    path = notes(tmp_path)
    report = sync_paths([path], syncer.home)  # spooled and recorded, not stored yet
    StateStore(syncer.home).path.unlink()  # as if the pass died before saving its state
    again = sync_paths([path], syncer.home)
    assert again.keys == report.keys  # the same change: the spool refuses it
    assert len(Spool(syncer.home / "spool", _log()).pending()) == 1
    # the service dies after storing the entry, before marking it done: it is replayed
    (entry,) = Spool(syncer.home / "spool", _log()).pending()
    engine = make_engine(syncer.home, HashingEmbedder())
    try:
        capture_turn(engine, entry, _NoProgress())
    finally:
        engine.close()
    syncer.deliver()
    assert len(syncer.memories(everything=True)) == 4
    StateStore(syncer.home).path.write_text("{not json")  # damaged: moved aside
    assert syncer.sync(path).changes[0].added == 4  # read afresh, recognised by source
    assert len(syncer.memories(everything=True)) == 4
    assert StateStore(syncer.home).path.with_name("state.json.unreadable").exists()


def test_daily_logs_are_dated_and_notes_in_a_repository_belong_to_its_project(
    syncer: Syncer, tmp_path: Path
) -> None:
    repo = tmp_path / "atlas"
    (repo / ".git").mkdir(parents=True)
    log_file = notes(repo / "memory", "2026-11-24.md", "- Fixed the flaky login test.\n")
    syncer.sync(log_file)
    (memory,) = syncer.memories()
    assert memory.project == "atlas"
    assert memory.episode_start is not None
    assert memory.episode_start.astimezone().date().isoformat() == "2026-11-24"
    other = notes(tmp_path / "loose", text="- The printer is on floor two.\n")
    syncer.sync(other, project="office")
    assert {m.project for m in syncer.memories()} == {"atlas", "office"}


def _transcript_line(role: str, text: str, cwd: Path, n: int) -> str:
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    message = {"role": role, "content": content}
    if role == "assistant":
        message["id"] = f"msg_{n}"
    return json.dumps(
        {"type": role, "message": message, "uuid": f"u{n}", "cwd": str(cwd),
         "sessionId": "sess-1", "timestamp": "2026-11-24T10:00:00Z"}
    )  # fmt: skip


def test_a_growing_transcript_is_captured_exchange_by_exchange_in_order(
    syncer: Syncer, tmp_path: Path
) -> None:
    repo = tmp_path / "atlas"
    (repo / ".git").mkdir(parents=True)
    transcript = tmp_path / "projects" / "sess-1.jsonl"
    transcript.parent.mkdir()
    said = [
        ("user", "Remember that the staging database is Postgres 16."),
        ("assistant", "Noted: staging runs Postgres 16."),
        ("user", "We decided to deploy atlas from the Frankfurt region."),
        ("assistant", "Understood, Frankfurt it is."),
    ]
    with transcript.open("w") as out:
        for n, (role, text) in enumerate(said[:2]):
            out.write(_transcript_line(role, text, repo, n) + "\n")
        out.write(_transcript_line(*said[2], repo, 2)[:30])  # still being written
    first = syncer.sync(transcript.parent)
    assert [c.describe() for c in first.changes] == [f"{transcript}: 1 new exchange"]
    with transcript.open("w") as out:
        for n, (role, text) in enumerate(said):
            out.write(_transcript_line(role, text, repo, n) + "\n")
    second = syncer.sync(transcript.parent)
    assert [c.describe() for c in second.changes] == [f"{transcript}: 1 new exchange"]
    assert syncer.sync(transcript.parent).keys == []
    memories = syncer.memories()
    assert any("Postgres 16" in m.content for m in memories)
    assert any("Frankfurt" in m.content for m in memories)
    assert {m.session_id for m in memories} == {"sess-1"}
    assert {m.project for m in memories} == {"atlas"}
    assert {m.source for m in memories} == {f"sync:{transcript}"}
    turns = (
        {m.turn for m in memories if "Postgres" in m.content},
        {m.turn for m in memories if "Frankfurt" in m.content},
    )
    assert turns == ({0}, {1})  # the session's order: recall reads turn 1 after turn 0
    # the post hook of this session starts where sync stopped
    assert Offsets(syncer.home / "spool" / "offsets").get("sess-1") == transcript.stat().st_size
    renamed = transcript.rename(transcript.with_name("kept.jsonl"))
    moved = syncer.sync(transcript.parent)
    assert [c.describe() for c in moved.changes] == [f"{renamed}: renamed from {transcript}"]
    assert moved.keys == []
    renamed.unlink()  # deleting a log does not unsay the conversation
    syncer.sync(transcript.parent)
    assert len(syncer.memories()) == len(memories)


def test_files_that_cannot_be_taken_in_are_skipped_with_a_reason(
    syncer: Syncer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    notes(folder)
    (folder / "image.md").write_bytes(b"\x89PNG\x00\x00binary")
    (folder / "latin1.md").write_bytes("- caf\xe9 opens at nine\n".encode("latin-1"))
    (folder / "big.md").write_text("- a line\n" * 200)
    os.mkfifo(folder / "pipe.md")
    (folder / "script.py").write_text("print('not notes')\n")
    monkeypatch.setattr(files, "NOTES_LIMIT", 1024)
    report = syncer.sync(folder)
    assert sorted(report.skipped) == [
        f"skipped {folder / 'big.md'}: is 0.0 MB, over the 0 MB limit; split it to sync it",
        f"skipped {folder / 'image.md'}: a binary file, not notes; "
        "leave it out of the synced paths",
        f"skipped {folder / 'latin1.md'}: not UTF-8 text (byte 5); save it as UTF-8 to sync it",
        f"skipped {folder / 'pipe.md'}: is a named pipe, not a regular file; "
        "give the path of a file",
    ]
    assert len(syncer.contents()) == 4  # MEMORY.md taken in, the rest left alone
    named = sync_paths([folder / "script.py"], syncer.home)
    assert named.skipped == [
        f"skipped {folder / 'script.py'}: not notes (.md, .markdown, .txt), a transcript "
        "(.jsonl) or an OpenClaw session store (openclaw-agent.sqlite)"
    ]
    with pytest.raises(InvalidInputError, match="does not exist; give a notes file"):
        sync_paths([tmp_path / "nowhere.md"], syncer.home)


def test_a_long_file_reports_progress_batch_by_batch(syncer: Syncer, tmp_path: Path) -> None:
    lines = "".join(
        f"- Service {i} listens on port {9000 + i} in rack {i % 7}.\n" for i in range(100)
    )
    path = notes(tmp_path, text=lines)
    seen: list[tuple[int, int]] = []
    report = syncer.sync(path, progress=lambda done, total: seen.append((done, total)))
    assert report.operations == 100
    assert {total for _, total in seen} == {100}
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == 100 and len(set(done)) >= 4
    assert len(syncer.memories(everything=True)) >= 90  # a few may fold into a neighbour


class _NoProgress:
    def saved_candidates(self) -> None:
        return None

    def save_candidates(self, candidates: object) -> None:
        pass

    def is_written(self, index: int) -> bool:
        return False

    def mark_written(self, index: int) -> None:
        pass


def _log() -> logging.Logger:
    return logging.getLogger("test")


def test_a_statement_longer_than_a_memory_may_be_is_skipped_with_its_line(
    syncer: Syncer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_LIMITS__CONTENT_CHARS", "100")
    long = "The release checklist covers " + ", ".join(f"step {i}" for i in range(30)) + "."
    path = notes(tmp_path / "notes", text=f"- Deploys go to Amsterdam.\n- {long}\n")
    report = syncer.sync(path)
    assert report.skipped == [
        f"skipped {path}:2: a statement of {len(long)} characters, over "
        "limits.content_chars (100); split it"
    ]
    assert syncer.contents() == ["Deploys go to Amsterdam."]
