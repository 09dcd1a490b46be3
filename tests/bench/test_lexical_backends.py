"""The lexical-backend comparison runs: each Edge backend indexes, updates and ranks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui.bench.lexical_backends import measure_quality, measure_speed

SYNTHETIC = Path(__file__).resolve().parents[1] / "data" / "locomo" / "synthetic-conversations.json"


@pytest.mark.parametrize("backend", ["cortex", "edge-bm25", "edge-text"])
def test_each_edge_backend_ranks_and_times(tmp_path: Path, backend: str) -> None:
    quality = measure_quality(backend, SYNTHETIC, tmp_path, conversations=("syn-1",))
    assert quality.queries > 0
    assert 0 < quality.recall_at_10 <= 100 and 0 < quality.mrr <= 1
    speed = measure_speed(backend, 300, ["when did Ines adopt a dog", "deploy atlas"], tmp_path)
    assert speed.size == 300 and speed.build_s >= 0 and speed.query_p50_ms > 0
    assert speed.size_mb > 0
