"""An interrupted re-embed leaves the old store as it was, and the next run resumes: it
keeps the vectors already made for memories whose text has not changed, and brings the
rest up to date with what the old store holds now. On the embedded store and on a Qdrant
server: a real one when CORTEX_QDRANT_URL names it, else qdrant-client's in-process
engine, one instance shared by every open (a `:memory:` client is otherwise new and
empty each time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.maintenance.reembed import BATCH, reembed
from cortex_tui.models import Entity, MemoryDraft
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW

EVERYTHING = MemoryFilter(current_only=False, statuses=None)


def _stop_after_the_first_batch(done: int, total: int) -> None:
    if 0 < done < total:
        raise KeyboardInterrupt


def _memory_ids(settings: Settings, store_path: Path | None = None) -> list[str]:
    engine = open_engine(settings, clock=frozen_clock(NOW), store_path=store_path)
    try:
        return sorted(m.id for m in engine.store.iter_memories(EVERYTHING))
    finally:
        engine.close()


def _open_half_built(settings: Settings, backend: str) -> LocalEngine:
    """What the interrupted run built (white box: where it builds)."""
    if backend == "embedded":
        path = settings.store_path.with_name("store.reembed")
        return open_engine(settings, clock=frozen_clock(NOW), store_path=path)
    half = settings.model_copy(deep=True)
    half.store.collection_prefix = f"{settings.store.collection_prefix}_reembed-a"
    return open_engine(half, clock=frozen_clock(NOW))


def test_an_interrupted_reembed_resumes_with_what_it_made(tmp_path: Path, configure: Any) -> None:
    home = tmp_path / "home"
    old, new = configure(home, 384), configure(home, 64)
    engine = open_engine(old, clock=frozen_clock(NOW))
    drafts = [MemoryDraft(content=f"release note {i}: service {i % 7} moved") for i in range(300)]
    engine.insert([engine.materialise(d) for d in drafts])
    engine.close()

    with pytest.raises(KeyboardInterrupt):
        reembed(new, "hashing", _stop_after_the_first_batch)

    half_built = _open_half_built(new, configure.backend)
    done = sorted(m.id for m in half_built.store.iter_memories(EVERYTHING))
    # As if it had been cut off later, copying an entity the old store then deleted.
    stale = Entity(name="Stale", created_at=NOW)
    half_built.store.upsert_entities([stale], [HashingEmbedder(64).embed(["Stale"])[0]])
    half_built.close()
    assert len(done) == BATCH

    # The old store is untouched and in use while the new one waits half built.
    engine = open_engine(old, clock=frozen_clock(NOW))
    assert engine.store.meta.embedder == "hashing:v1:384"
    assert engine.store.count_memories(EVERYTHING) == 300
    changed = engine.get(done[0]).model_copy(update={"content": "release note: rewritten"})
    engine.insert([changed])  # the same id with another text (a content fix in place)
    engine.forget(done[1])
    assert engine.upkeep.purge() == 1
    added = engine.remember(MemoryDraft(content="a memory written after the interruption"))
    engine.close()

    report = reembed(new, "hashing")
    assert (report.memories, report.resumed) == (300, BATCH - 2)
    assert report.target == "hashing:v1:64"

    engine = open_engine(new, clock=frozen_clock(NOW))
    try:
        memories = {m.id: m for m in engine.store.iter_memories(EVERYTHING)}
        assert len(memories) == 300 and done[1] not in memories
        assert memories[done[0]].content == "release note: rewritten"
        assert added.memory.id in memories
        assert engine.store.get_entities([stale.id]) == []
        vectors = engine.store.get_vectors(list(memories))
        model = HashingEmbedder(64)
        for memory_id, memory in memories.items():
            np.testing.assert_allclose(
                vectors[memory_id], model.embed([memory.content])[0], atol=1e-6
            )
    finally:
        engine.close()


def _facts(settings: Settings, count: int) -> None:
    engine = open_engine(settings, clock=frozen_clock(NOW))
    engine.insert([engine.materialise(MemoryDraft(content=f"fact {i}")) for i in range(count)])
    engine.close()


def test_a_half_built_store_for_another_embedder_is_started_again(
    tmp_path: Path, configure: Any
) -> None:
    home = tmp_path / "home"
    _facts(configure(home, 384), 200)
    with pytest.raises(KeyboardInterrupt):
        reembed(configure(home, 64), "hashing", _stop_after_the_first_batch)

    report = reembed(configure(home, 32), "hashing")
    assert (report.memories, report.resumed, report.target) == (200, 0, "hashing:v1:32")
    assert len(_memory_ids(configure(home, 32))) == 200
    if configure.backend == "embedded":
        assert not (home / "store.reembed").exists()


@pytest.mark.parametrize("configure", ["server"], indirect=True)
def test_a_server_store_moves_between_generations_and_drops_the_old_one(
    tmp_path: Path, configure: Any
) -> None:
    home = tmp_path / "home"
    _facts(configure(home, 384), 20)
    prefix, admin = configure.prefix, configure.admin

    def collections() -> set[str]:
        return {c.name for c in admin.get_collections().collections if c.name.startswith(prefix)}

    before = collections()
    assert f"{prefix}_memories" in before and f"{prefix}_meta" in before
    reembed(configure(home, 64), "hashing")
    assert {name.replace("_reembed-a", "") for name in collections()} == before
    reembed(configure(home, 32), "hashing")
    assert {name.replace("_reembed-b", "") for name in collections()} == before
    assert len(_memory_ids(configure(home, 32))) == 20
