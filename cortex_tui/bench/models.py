"""What each embedding model costs on this machine: the figures beside the quality
table of docs/measurements.md ("Embedding models").

    python -m cortex_tui.bench.models [--models all-MiniLM-L6-v2,all-MiniLM-L6-v2-packaged]

Each model is measured in a process of its own (so its memory is its own): load time
(find, hash-check, open the session), a query's p50 and p95 over synthetic ~20-token
queries embedded one by one, ingest texts/s over synthetic memories embedded as
`import` does, resident memory after all that, and the size of its files. Models come
from the configured models folder (`cortex-tui model list`).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from typing import Any

from cortex_tui.bench.corpus import synthetic_texts
from cortex_tui.bench.timing import time_query_embedding

QUERIES = 200
TEXTS = 2000


def measure(model: str) -> dict[str, Any]:
    """One model's figures, measured in this process."""
    from cortex_tui.config import load_settings
    from cortex_tui.embed.factory import make_embedder

    settings = load_settings()
    config = settings.embedder.model_copy(update={"kind": "onnx", "model": model})
    started = time.perf_counter()
    embedder = make_embedder(config, settings.models_path)
    load_ms = (time.perf_counter() - started) * 1000
    query = time_query_embedding(embedder, synthetic_texts(QUERIES, seed=7))
    texts = synthetic_texts(TEXTS, seed=1)
    t0 = time.perf_counter()
    embedder.embed(texts)
    ingest = len(texts) / (time.perf_counter() - t0)
    files = _model_files(model, settings.models_path)
    return {
        "model": model,
        "embedder": embedder.name,
        "dimension": embedder.dimension,
        "load_ms": round(load_ms, 1),
        "query": query,
        "ingest_texts_per_s": round(ingest, 1),
        "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "size_mb": round(sum(f.stat().st_size for f in files) / 1e6, 1),
    }


def _model_files(model: str, models_dir: Any) -> list[Any]:
    from cortex_tui.embed.catalogue import PACKAGED_MODEL, packaged_model

    if model == PACKAGED_MODEL:
        return [packaged_model().model_path]
    return [f for f in (models_dir / model).iterdir() if f.is_file()]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.models")
    parser.add_argument(
        "--models",
        default="all-MiniLM-L6-v2,all-MiniLM-L6-v2-packaged",
        help="comma-separated model names (default: the default and the packaged file)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process's job
    options = parser.parse_args(argv)
    if options.one:
        print(json.dumps(measure(options.one)))
        return 0
    failed = 0
    for model in options.models.split(","):
        child = subprocess.run(
            [sys.executable, "-m", "cortex_tui.bench.models", "--one", model],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            last = (child.stderr.strip().splitlines() or ["no message"])[-1]
            print(f"{model}: failed: {last}", file=sys.stderr)
            failed += 1
            continue
        figures = json.loads(child.stdout)
        query = figures["query"]
        print(
            f"{model:<28} {figures['dimension']:>4}-d  load {figures['load_ms']:>6.0f} ms  "
            f"query p50 {query['p50_ms']:.2f} / p95 {query['p95_ms']:.2f} ms  "
            f"ingest {figures['ingest_texts_per_s']:>6.0f} texts/s  "
            f"RSS {figures['rss_mb']:.0f} MB  files {figures['size_mb']:.0f} MB"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
