"""A backup holds the whole store, and restoring it gives the same store back: the same
memories, entities, relations and journal (so undo still works), the same vectors (so
recall scores the same). A damaged backup is refused before anything changes, and the
store a restore replaces is kept. On the embedded store and on a Qdrant server."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.errors import InvalidInputError
from cortex_tui.maintenance.backup import list_backups, read_info
from cortex_tui.maintenance.restore import restore_backup
from cortex_tui.models import Entity, MemoryDraft, Relation
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW

EVERYTHING = MemoryFilter(current_only=False, statuses=None)


def _open(settings: Settings) -> LocalEngine:
    return open_engine(settings, clock=frozen_clock(NOW))


def _fill(engine: LocalEngine) -> None:
    """300 facts (more than one batch), a conversation (context vectors; a turn of two
    sentences has part vectors), a conflict resolved by hand (journal entries) and a
    small graph."""
    facts = [MemoryDraft(content=f"service {i} deploys from release-{i % 9}") for i in range(300)]
    engine.insert([engine.materialise(d) for d in facts])
    conversation = [
        ("Ana", "We moved the nightly build to 02:00."),
        (
            "Ben",
            "It was at 23:00 before, far too late. That clashed with the nightly database backups.",
        ),
    ]
    turns = [
        MemoryDraft(content=f"{who}: {text}", session_id="s-1", turn=turn, speaker=who)
        for turn, (who, text) in enumerate(conversation)
    ]
    engine.insert([engine.materialise(d) for d in turns])
    engine.remember(MemoryDraft(content="The atlas team uses Postgres 15", project="atlas"))
    new = engine.remember(MemoryDraft(content="The atlas team uses MySQL 8", project="atlas"))
    for group in engine.curation.conflicts():
        engine.curation.resolve(group.id, new.memory.id)
    atlas = Entity(name="Atlas", created_at=NOW)
    postgres = Entity(name="Postgres", created_at=NOW)
    relation = Relation(
        subject_id=atlas.id, predicate="uses", object_id=postgres.id, valid_from=NOW
    )
    engine.insert_graph([atlas, postgres], [relation])


def _snapshot(engine: LocalEngine) -> dict[str, Any]:
    question = RecallRequest(query="which database does atlas use", limit=10, update_access=False)
    recall = engine.recall(question)
    return {
        "export": list(engine.export()),
        "journal": engine.store.journal(limit=1000),
        "scores": [(r.memory.id, round(r.score, 6)) for r in recall.results],
        "context": engine.store.get_vectors(
            [m.id for m in engine.store.iter_memories(EVERYTHING)], context=True
        ),
        "parts": engine.store.get_parts([m.id for m in engine.store.iter_memories(EVERYTHING)]),
    }


def test_a_restored_backup_is_the_store_it_was_taken_from(tmp_path: Path, configure: Any) -> None:
    settings = configure(tmp_path / "home", 384)
    engine = _open(settings)
    _fill(engine)
    before = _snapshot(engine)
    report = engine.upkeep.backup()
    assert report.info.counts["memories"] == engine.store.count_points("memories") > 300
    assert report.info.counts["journal"] >= 1 and report.info.counts["relations"] == 1
    assert before["context"], "the conversation's memories have context vectors"
    assert before["parts"], "memories of several sentences have part vectors"
    # Changes after the backup: all of them undone by the restore.
    engine.remember(MemoryDraft(content="a memory written after the backup"))
    engine.forget(before["scores"][0][0])
    engine.close()

    restored = restore_backup(settings, Path(report.path))

    assert restored.previous is not None and "before-restore" in restored.previous
    engine = _open(settings)
    try:
        assert _snapshot(engine) == before
        assert engine.curation.undo(1)  # the journal came back with the memories it undoes
    finally:
        engine.close()
    reasons = [info.reason for _, info in list_backups(settings.backups_path)]
    assert reasons == ["manual", "before restore"]


def _damaged_copy(source: Path, target: Path) -> Path:
    """The backup with one byte of its memories changed (the CRC no longer matches)."""
    data = bytearray(source.read_bytes())
    with zipfile.ZipFile(source) as archive:
        member = archive.getinfo("memories.jsonl")
    middle = member.header_offset + 30 + len(member.filename) + member.compress_size // 2
    data[middle] ^= 0xFF
    target.write_bytes(bytes(data))
    return target


@pytest.mark.parametrize("configure", ["embedded"], indirect=True)
def test_a_damaged_backup_is_refused_and_the_store_stays_as_it_was(
    tmp_path: Path, configure: Any
) -> None:
    settings = configure(tmp_path / "home", 384)
    engine = _open(settings)
    _fill(engine)
    backup = Path(engine.upkeep.backup().path)
    engine.remember(MemoryDraft(content="written after the backup, kept by the failed restore"))
    expected = list(engine.export())
    engine.close()
    cut = tmp_path / "cut.cortex-backup"
    cut.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    flipped = _damaged_copy(backup, tmp_path / "flipped.cortex-backup")
    not_zip = tmp_path / "notes.cortex-backup"
    not_zip.write_text("not a backup")

    for bad in (cut, flipped, not_zip, tmp_path / "missing.cortex-backup"):
        with pytest.raises(InvalidInputError, match=str(bad.name)):
            restore_backup(settings, bad)

    assert not settings.store_path.with_name("store.restore").exists()
    engine = _open(settings)
    try:
        assert list(engine.export()) == expected
    finally:
        engine.close()


@pytest.mark.parametrize("configure", ["embedded"], indirect=True)
def test_lifecycle_backs_up_first_and_keeps_the_newest_automatic_backups(
    tmp_path: Path, configure: Any
) -> None:
    settings = configure(tmp_path / "home", 384)
    settings.backup.keep = 2
    engine = _open(settings)
    engine.remember(MemoryDraft(content="kept by hand"))
    manual = engine.upkeep.backup()
    reports = [engine.upkeep.lifecycle() for _ in range(3)]
    dry = engine.upkeep.lifecycle(dry_run=True)
    engine.close()

    assert all(r.backup for r in reports) and dry.backup is None
    kept = list_backups(settings.backups_path)
    assert [str(path) for path, _ in kept] == [manual.path, reports[1].backup, reports[2].backup]
    assert read_info(Path(reports[2].backup or "")).reason == "before lifecycle"


def test_restoring_an_automatic_backup_never_prunes_it(tmp_path: Path, configure: Any) -> None:
    settings = configure(tmp_path / "home", 384)
    settings.backup.keep = 1
    engine = _open(settings)
    engine.remember(MemoryDraft(content="The on-call rota changes on Mondays"))
    source = engine.upkeep.lifecycle().backup
    engine.close()
    assert source is not None

    restored = restore_backup(settings, Path(source))

    assert Path(source).exists() and Path(restored.previous or "").exists()
