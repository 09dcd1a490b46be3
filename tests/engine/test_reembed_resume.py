"""An interrupted re-embed leaves the old store as it was, and the next run resumes: it
keeps the vectors already made for memories whose text has not changed, and brings the
rest up to date with what the old store holds now."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings, load_settings
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.open import open_engine
from cortex_tui.engine.reembed import BATCH, reembed
from cortex_tui.models import MemoryDraft
from cortex_tui.store.base import MemoryFilter
from cortex_tui.store.edge import EdgeStore
from tests.conftest import NOW

EVERYTHING = MemoryFilter(current_only=False, statuses=None)


def _settings(home: Path, dimension: int) -> Settings:
    settings = load_settings(home)
    settings.embedder.kind = "hashing"
    settings.embedder.hashing_dimension = dimension
    return settings


def _stop_after_the_first_batch(done: int, total: int) -> None:
    if 0 < done < total:
        raise KeyboardInterrupt


def test_an_interrupted_reembed_resumes_with_what_it_made(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old, new = _settings(home, 384), _settings(home, 64)
    engine = open_engine(old, clock=frozen_clock(NOW))
    drafts = [MemoryDraft(content=f"release note {i}: service {i % 7} moved") for i in range(300)]
    engine.insert([engine.materialise(d) for d in drafts])
    engine.close()

    with pytest.raises(KeyboardInterrupt):
        reembed(new, "hashing", _stop_after_the_first_batch)

    half_built = EdgeStore.open(
        old.store_path.with_name("store.reembed"), "any", 64, check_embedder=False
    )
    done = sorted(m.id for m in half_built.iter_memories(EVERYTHING))
    half_built.close()
    assert len(done) == BATCH

    # The old store is untouched and in use while the new one waits half built.
    engine = open_engine(old, clock=frozen_clock(NOW))
    assert engine.store.meta.embedder == "hashing:v1:384"
    assert engine.store.count_memories(EVERYTHING) == 300
    changed = engine.get(done[0]).model_copy(update={"content": "release note: rewritten"})
    engine.insert([changed])  # the same id with another text (a content fix in place)
    engine.forget(done[1])
    assert engine.purge() == 1
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
        vectors = engine.store.get_vectors(list(memories))
        model = HashingEmbedder(64)
        for memory_id, memory in memories.items():
            np.testing.assert_allclose(
                vectors[memory_id], model.embed([memory.content])[0], atol=1e-6
            )
    finally:
        engine.close()


def test_a_half_built_store_for_another_embedder_is_started_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    engine = open_engine(_settings(home, 384), clock=frozen_clock(NOW))
    engine.insert([engine.materialise(MemoryDraft(content=f"fact {i}")) for i in range(200)])
    engine.close()
    with pytest.raises(KeyboardInterrupt):
        reembed(_settings(home, 64), "hashing", _stop_after_the_first_batch)

    report = reembed(_settings(home, 32), "hashing")
    assert (report.memories, report.resumed, report.target) == (200, 0, "hashing:v1:32")
    assert not (home / "store.reembed").exists()
