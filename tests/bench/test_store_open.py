"""The store-open bench: every layout holds every point of the store and is timed."""

from __future__ import annotations

from pathlib import Path

from cortex_tui.bench.store_open import LAYOUTS, measure
from cortex_tui.embed.base import Embedder
from cortex_tui.models import MemoryDraft
from tests.conftest import make_engine


def test_each_layout_is_a_full_copy_opened_and_searched(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    engine = make_engine(tmp_path / "home", hashing_embedder)
    for i in range(40):
        engine.remember(MemoryDraft(content=f"Service {i} deploys from branch release-{i}."))
    store = Path(engine.store.location)
    points = engine.stats().total
    engine.close()
    lines: list[str] = []
    report = measure(store, list(LAYOUTS), lines.append)
    assert list(report["layouts"]) == list(LAYOUTS) and len(lines) == len(LAYOUTS)
    for timed in report["layouts"].values():
        assert timed["points"] == points == 40
        assert timed["open_ms"] > 0 and timed["search_p50_ms"] > 0
