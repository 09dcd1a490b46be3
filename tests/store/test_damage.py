"""A damaged store says so, and the way out loses nothing.

Each damage is made to the files of a real store as a disk or a careless hand would:
the id tracker cut in half, `segments/` deleted, garbage over a payload page, the
write-ahead log cut. Qdrant Edge replays its log on open, which mends the first two as
long as the log still holds every write; a store past ~32 MB of writes has dropped the
oldest, which the tests stand for by removing the log with the segment damage. Then,
through the CLI as a user meets it: the damage is reported in one line naming the way
out (non-zero exit, no traceback), `health --deep` warns, `repair` rebuilds what is
readable beside the damaged store, and `restore-backup` of a backup taken before the
damage brings back every memory, entity, relation and journal entry.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.engine.open import open_engine
from cortex_tui.models import Entity, MemoryDraft, Relation
from cortex_tui.store.integrity import INTEGRITY_NAME
from tests.conftest import NOW, Cli

MEMORIES = 150


def _build(home: Path) -> list[str]:
    """A store with memories, a curated conflict (journal), a graph; its export."""
    settings = load_settings(home)
    settings.embedder.kind = "hashing"
    engine = open_engine(settings, clock=frozen_clock(NOW))
    try:
        drafts = [
            MemoryDraft(content=f"runbook step {i}: restart worker {i % 11}")
            for i in range(MEMORIES)
        ]
        engine.insert([engine.materialise(d) for d in drafts])
        engine.remember(MemoryDraft(content="The billing job runs at 01:00"))
        engine.forget(engine.remember(MemoryDraft(content="Temporary note to drop")).memory.id)
        atlas, pg = Entity(name="Atlas", created_at=NOW), Entity(name="Postgres", created_at=NOW)
        uses = Relation(subject_id=atlas.id, predicate="uses", object_id=pg.id, valid_from=NOW)
        engine.insert_graph([atlas, pg], [uses])
        return list(engine.export())
    finally:
        engine.close()


def _segment(home: Path) -> Path:
    (segment,) = (home / "store" / "memories" / "segments").iterdir()
    return segment


def _without_log(home: Path) -> None:
    """The log no longer holding the early writes (as after ~32 MB of later ones)."""
    for entry in (home / "store" / "memories" / "wal").iterdir():
        entry.unlink()


def cut_id_tracker(home: Path) -> None:
    _without_log(home)
    tracker = _segment(home) / "mutable_id_tracker.mappings"
    os.truncate(tracker, tracker.stat().st_size // 2)


def delete_segments(home: Path) -> None:
    _without_log(home)
    shutil.rmtree(home / "store" / "memories" / "segments")


def garble_payload_page(home: Path) -> None:
    page = _segment(home) / "payload_storage" / "page_0.dat"
    with page.open("r+b") as handle:
        handle.write(bytes(range(256)) * 80)


def cut_log_and_id_tracker(home: Path) -> None:
    log = home / "store" / "memories" / "wal" / "open-1"
    os.truncate(log, 4096)
    tracker = _segment(home) / "mutable_id_tracker.mappings"
    os.truncate(tracker, tracker.stat().st_size // 3)


Damage = Callable[[Path], None]


def _one_line_error(run: object) -> str:
    code, err = run.code, run.err  # type: ignore[attr-defined]
    assert code != 0 and "Traceback" not in err
    assert err.count("\n") == 1, err
    assert "is damaged" in err and "restore-backup" in err and "cortex-tui repair" in err
    return str(err)


@pytest.mark.parametrize(
    "damage", [cut_id_tracker, delete_segments, cut_log_and_id_tracker], ids=lambda d: d.__name__
)
def test_damage_found_on_open_is_reported_and_a_backup_restores_everything(
    cli: Cli, damage: Damage
) -> None:
    before = _build(cli.home)
    backup = cli("backup", "--json")
    assert backup.code == 0, backup.err
    damage(cli.home)

    said = _one_line_error(cli("stats"))
    assert "memories hold" in said and f"where {MEMORIES + 2} were written" in said
    _one_line_error(cli("recall", "restart worker"))  # every command, not only stats

    restored = cli("restore-backup", json.loads(backup.out)["path"], "--yes")
    assert restored.code == 0, restored.err
    assert "store.damaged-" in restored.out
    assert cli("export").out.splitlines() == before


def test_a_garbled_payload_page_is_reported_when_read_and_repair_keeps_the_rest(
    cli: Cli,
) -> None:
    before = _build(cli.home)
    backup = json.loads(cli("backup", "--json").out)["path"]
    garble_payload_page(cli.home)

    assert cli("stats").code == 0  # counts still add up: the pages are read later
    _one_line_error(cli("list", "--limit", "200"))
    deep = cli("health", "--deep")
    assert deep.code == 1 and "store data   WARNING" in deep.out and "repair" in deep.out

    repaired = cli("repair", "--json")
    assert repaired.code == 0, repaired.err
    report = json.loads(repaired.out)
    lost, copied = report["lost"]["memories"], report["copied"]["memories"]
    assert lost > 0 and copied + lost == MEMORIES + 2
    assert report["copied"]["entities"] == 2 and report["copied"]["relations"] == 1
    assert "store.damaged-" in report["previous"]
    assert cli("health", "--deep").out.count("WARNING") == 0
    assert json.loads(cli("stats", "--json").out)["total"] == copied

    assert cli("restore-backup", backup, "--yes").code == 0
    assert cli("export").out.splitlines() == before


def test_a_cut_log_alone_loses_nothing(cli: Cli) -> None:
    """Over a flushed store, the log holds nothing the segments lack."""
    before = _build(cli.home)
    os.truncate(cli.home / "store" / "memories" / "wal" / "open-1", 4096)
    assert cli("stats").code == 0
    assert cli("export").out.splitlines() == before
    assert cli("remember", "written after the cut").code == 0
    assert cli("search", "written after the cut").code == 0


def test_a_write_cut_short_by_a_crash_is_not_damage(cli: Cli) -> None:
    """The record says a write of up to 5 points was under way: a store holding 3 fewer
    points than the record's count is what such a crash leaves, not damage."""
    _build(cli.home)
    record_file = cli.home / "store" / INTEGRITY_NAME
    record = json.loads(record_file.read_text())
    record["counts"]["memories"] += 3
    record["pending"] = {"memories": 5}
    record_file.write_text(json.dumps(record))
    assert cli("stats").code == 0
    # The open made what loaded the record, with no write under way.
    settled = json.loads(record_file.read_text())
    assert settled["pending"] == {} and settled["counts"]["memories"] == MEMORIES + 2
    record["pending"] = {}
    record_file.write_text(json.dumps(record))
    _one_line_error(cli("stats"))


def test_repair_hands_back_the_journals_record_of_lost_memories(cli: Cli) -> None:
    _build(cli.home)
    page = _segment(cli.home) / "payload_storage" / "page_0.dat"
    with page.open("r+b") as handle:  # every payload unreadable
        handle.write(bytes(range(256)) * 4096)

    report = json.loads(cli("repair", "--json").out)

    assert report["copied"]["memories"] == 0 and report["lost"]["memories"] == MEMORIES + 2
    assert report["journal_memories"] == 1  # the note `forget` recorded before deleting it
    states = Path(report["journal_states"])
    assert states.stat().st_mode & 0o077 == 0
    assert cli("import", str(states)).code == 0
    assert "Temporary note to drop" in cli("search", "temporary note").out


def test_a_shard_that_no_longer_loads_is_damage_too(cli: Cli) -> None:
    _build(cli.home)
    (_segment(cli.home) / "segment.json").unlink()
    said = _one_line_error(cli("stats"))
    assert "memories do not load" in said
