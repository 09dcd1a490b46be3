"""The archive keeps what its settings say: `lifecycle` removes messages older than
`archive.keep_days` and the oldest beyond `archive.max_messages` (a dry run only counts
them), after the backup it takes first."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from cortex_tui.bench.archive import fill_archive
from cortex_tui.embed.base import Embedder
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW, make_engine


def test_turns_older_than_keep_days_are_removed(
    tmp_path: Path, hashing_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    for days, session, said in ((40, "old", "kestrel-02"), (2, "new", "osprey-07")):
        engine = make_engine(home, hashing_embedder, NOW - timedelta(days=days))
        engine.capture(
            f"User: Remember that the staging host is {said}.\nAssistant: Ok.", session_id=session
        )
        engine.close()
    monkeypatch.setenv("CORTEX_ARCHIVE__KEEP_DAYS", "30")
    engine = make_engine(home, hashing_embedder, NOW)
    try:
        assert engine.upkeep.lifecycle(dry_run=True).archive_removed == 1
        assert [s.session_id for s in engine.archive.sessions()] == ["new", "old"]
        report = engine.upkeep.lifecycle()
        assert report.archive_removed == 1 and report.backup is not None
        assert [s.session_id for s in engine.archive.sessions()] == ["new"]
        assert engine.upkeep.lifecycle().archive_removed == 0
        # The memories stay; the one whose turn is gone no longer finds it.
        everything = MemoryFilter(current_only=False, statuses=None)
        kept = {m.content: m for m in engine.store.iter_memories(everything)}
        old = next(m for content, m in kept.items() if "kestrel-02" in content)
        new = next(m for content, m in kept.items() if "osprey-07" in content)
        assert old.said_in and engine.archive.said_in(old.id) == []
        assert [m.speaker for m in engine.archive.said_in(new.id)] == ["user"]
    finally:
        engine.close()


def test_the_oldest_messages_beyond_the_size_limit_are_removed(
    tmp_path: Path, hashing_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_ARCHIVE__MAX_MESSAGES", "100")
    engine = make_engine(tmp_path / "home", hashing_embedder, NOW)
    try:
        vectors = np.asarray(hashing_embedder.embed(["a", "b", "c"]), dtype=np.float32)
        fill_archive(engine.store, vectors, 60, [None], NOW)  # 120 messages
        everything = engine.archive.sessions(limit=1000)
        said = sorted(m.said_at for s in everything for m in engine.archive.session(s.session_id))
        assert engine.upkeep.lifecycle().archive_removed == 20
        left = [
            m.said_at
            for s in engine.archive.sessions()
            for m in engine.archive.session(s.session_id)
        ]
        assert sorted(left) == said[20:]
    finally:
        engine.close()
