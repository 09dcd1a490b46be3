"""The store-open bench: every layout holds every point of the store and is timed."""

from __future__ import annotations

from pathlib import Path

from cortex_tui.bench.store_open import LAYOUTS, measure, measure_growth
from cortex_tui.embed.base import Embedder
from cortex_tui.models import MemoryDraft
from tests.conftest import make_engine


def _store_of_forty(tmp_path: Path, embedder: Embedder) -> Path:
    engine = make_engine(tmp_path / "home", embedder)
    drafts = [
        MemoryDraft(content=f"Service {i} deploys from branch release-{i}.") for i in range(40)
    ]
    engine.insert([engine.materialise(draft) for draft in drafts])
    store = Path(engine.store.location)
    assert engine.overview.stats().total == 40
    engine.close()
    return store


def test_each_layout_is_a_full_copy_opened_and_searched(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    store = _store_of_forty(tmp_path, hashing_embedder)
    lines: list[str] = []
    report = measure(store, list(LAYOUTS), lines.append)
    assert list(report["layouts"]) == list(LAYOUTS) and len(lines) == len(LAYOUTS)
    for timed in report["layouts"].values():
        assert timed["points"] == 40
        assert timed["open_ms"] > 0 and timed["search_p50_ms"] > 0


def test_growth_compacts_as_it_goes_and_keeps_every_point(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    """Ten points a batch, a compaction due every 32 (384-d vectors: 48 KB)."""
    report = measure_growth(_store_of_forty(tmp_path, hashing_embedder), 10, 32)
    assert report["points"] == 40 and report["batch"] == 10
    assert report["compactions"] == 1 and report["compaction_max_s"] > 0
    assert report["segments"] >= 2 and report["open_ms"] > 0
