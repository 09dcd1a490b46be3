"""The model-cost measurement runs end to end: each model in a process of its own."""

from __future__ import annotations

import subprocess
import sys

from cortex_tui.bench.models import measure


def test_a_model_is_measured_load_query_ingest_memory_and_size() -> None:
    figures = measure("all-MiniLM-L6-v2")
    assert figures["dimension"] == 384 and figures["embedder"].startswith("onnx:all-MiniLM-L6-v2")
    assert figures["load_ms"] > 0 and figures["query"]["p50_ms"] > 0
    assert figures["ingest_texts_per_s"] > 0 and figures["rss_mb"] > 0
    assert figures["size_mb"] > 10  # the int8 graph and its tokenizer, not an empty folder


MODELS = "no-such-model,all-MiniLM-L6-v2"


def test_a_model_that_is_not_added_is_reported_and_the_others_still_run() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cortex_tui.bench.models", "--models", MODELS],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert "no-such-model: failed: " in run.stderr and "model add" in run.stderr
    assert run.stdout.startswith("all-MiniLM-L6-v2 ")
