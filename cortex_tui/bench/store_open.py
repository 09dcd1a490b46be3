"""Where opening a store goes, and what other segment layouts make of it.

    python -m cortex_tui.bench.store_open STORE [--layouts before,as-written,...]
    python -m cortex_tui.bench.store_open STORE --grow 1000 [--compact-after 5000]

A store's memories shard is copied, point for point, into a new shard of each layout;
each copy is timed opening (median of three, the files in the page cache) and then on
its first and later exact searches. A layout is where the payload indexes and the
vectors live (RAM: rebuilt or read in on every open; disk: memory-mapped) and whether
the shard was compacted (`optimize()`: immutable segments, with or without HNSW):

- `before`: what stores wrote until the indexes and vectors went to disk (one
  appendable segment, everything in RAM);
- `as-written`: what a store writes now (indexes and vectors on disk; an appendable
  segment still rebuilds its indexes in RAM);
- `compacted-ram`, `compacted-disk-indexes`: compacted without HNSW, indexes (and
  vectors) in RAM, or the indexes on disk;
- `compacted`: what a store writes now, compacted without HNSW;
- `optimized`: the same after `cortex-tui optimize` (HNSW for both vectors; minutes).

`--grow N` instead writes the shard into a store of this version's layout N points at
a time and compacts after each batch, as the service does once quiet between them: how
many compactions that takes, the longest (Edge's `optimize()` holds the GIL throughout,
so that is how long a request arriving then waits), the segments left, and the open.

What it found is in docs/measurements.md ("Speed").
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from cortex_tui.config import COMPACT_AFTER
from cortex_tui.store.edge_layout import payload_indexes, shard_config
from cortex_tui.store.points import CONTEXT, DENSE, LEXICAL, Collection

COPY_PAGE = 2000
SEARCHES = 20


@dataclass(frozen=True)
class Layout:
    disk_indexes: bool
    disk_vectors: bool
    compact: str | None
    """None, "plain" (immutable segments, exact search) or "hnsw"."""


LAYOUTS = {
    "before": Layout(disk_indexes=False, disk_vectors=False, compact=None),
    "as-written": Layout(disk_indexes=True, disk_vectors=True, compact=None),
    "compacted-ram": Layout(disk_indexes=False, disk_vectors=False, compact="plain"),
    "compacted-disk-indexes": Layout(disk_indexes=True, disk_vectors=False, compact="plain"),
    "compacted": Layout(disk_indexes=True, disk_vectors=True, compact="plain"),
    "optimized": Layout(disk_indexes=True, disk_vectors=True, compact="hnsw"),
}


def _config(layout: Layout, dimension: int) -> qe.EdgeConfig:
    memory = qe.Memory.Cold if layout.disk_vectors else None
    vectors = {
        name: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine, memory=memory)
        for name in (DENSE, CONTEXT)
    }
    no_graph = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000)
    return qe.EdgeConfig(
        vectors=vectors,
        sparse_vectors={LEXICAL: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        payload_memory=qe.Memory.Cold,
        hnsw_config=no_graph if layout.compact == "plain" else None,
    )


def _placed(schema: Any, on_disk: bool) -> Any:
    """The index `schema` describes, on disk or in RAM."""
    if isinstance(schema, qe.KeywordIndexParams):
        return qe.KeywordIndexParams(prefix=schema.prefix, on_disk=on_disk)
    if isinstance(schema, qe.DatetimeIndexParams):
        return qe.DatetimeIndexParams(on_disk=on_disk)
    if isinstance(schema, qe.IntegerIndexParams):
        return qe.IntegerIndexParams(lookup=True, range=True, on_disk=on_disk)
    if isinstance(schema, qe.TextIndexParams):
        return qe.TextIndexParams(tokenizer=schema.tokenizer, lowercase=True, on_disk=on_disk)
    raise ValueError(f"no placement for {schema!r}")


def build(source: Path, target: Path, layout: Layout, dimension: int) -> dict[str, float]:
    """Copy the shard at `source` into `target` in `layout`; seconds it took."""
    shard = qe.EdgeShard.create(str(target), _config(layout, dimension))
    for field, schema in payload_indexes(Collection.MEMORIES).items():
        wanted = _placed(schema, layout.disk_indexes)
        shard.update(qe.UpdateOperation.create_field_index(field, wanted))
    t0 = time.perf_counter()
    _copy(source, shard, COPY_PAGE, lambda: None)
    copied = time.perf_counter() - t0
    t0 = time.perf_counter()
    if layout.compact:
        shard.optimize()
    compacted = time.perf_counter() - t0
    shard.close()
    return {"copy_s": round(copied, 1), "optimize_s": round(compacted, 1)}


def grow(
    source: Path, target: Path, dimension: int, batch: int, compact_after: int
) -> dict[str, Any]:
    """Write the shard at `source` into `target`, in this version's layout, `batch` points
    at a time, compacting after each batch."""
    layout = shard_config(Collection.MEMORIES, dimension, compact_after=compact_after)
    shard = qe.EdgeShard.create(str(target), layout)
    for field, schema in payload_indexes(Collection.MEMORIES).items():
        shard.update(qe.UpdateOperation.create_field_index(field, schema))
    compactions: list[float] = []

    def compact() -> None:
        t0 = time.perf_counter()
        if shard.optimize():
            compactions.append(time.perf_counter() - t0)

    _copy(source, shard, batch, compact)
    segments = shard.info().segments_count
    shard.close()
    return {
        "compactions": len(compactions),
        "compaction_max_s": round(max(compactions, default=0.0), 2),
        "compaction_total_s": round(sum(compactions), 1),
        "segments": segments,
    }


def _copy(source: Path, shard: qe.EdgeShard, page: int, after_page: Callable[[], None]) -> None:
    original = qe.EdgeShard.load(str(source))
    offset = None
    try:
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=page, with_payload=True, with_vector=True
            )
            records, offset = original.scroll(request)
            points = [qe.Point(r.id, r.vector or {}, r.payload) for r in records]
            shard.update(qe.UpdateOperation.upsert_points(points))
            after_page()
            if offset is None:
                break
    finally:
        original.close()
    shard.flush()


def time_open(path: Path, dimension: int) -> dict[str, float]:
    """Open three times (median), then exact searches: the first, and the rest's p50."""
    opens = []
    for _ in range(3):
        t0 = time.perf_counter()
        shard = qe.EdgeShard.load(str(path))
        opens.append(time.perf_counter() - t0)
        shard.close()
    shard = qe.EdgeShard.load(str(path))
    rng = np.random.default_rng(0)
    searches = []
    try:
        points = shard.count(qe.CountRequest())
        for _ in range(SEARCHES):
            vector = rng.normal(size=dimension).astype(np.float32)
            query = qe.Query.Nearest((vector / np.linalg.norm(vector)).tolist(), using=DENSE)
            t0 = time.perf_counter()
            shard.query(qe.QueryRequest(query=query, limit=50, with_payload=False))
            searches.append(time.perf_counter() - t0)
    finally:
        shard.close()
    return {
        "points": points,
        "open_ms": round(statistics.median(opens) * 1000, 1),
        "first_search_ms": round(searches[0] * 1000, 3),
        "search_p50_ms": round(statistics.median(searches[1:]) * 1000, 3),
    }


def _dimension(store: Path) -> int:
    return int(json.loads((store / "meta.json").read_text())["dimension"])


def measure_growth(store: Path, batch: int, compact_after: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cortex-bench-grow-") as folder:
        target = Path(folder) / "grown"
        dimension = _dimension(store)
        grown = grow(store / Collection.MEMORIES.value, target, dimension, batch, compact_after)
        return {"store": str(store), "batch": batch, **grown, **time_open(target, dimension)}


def measure(store: Path, layouts: list[str], say: Callable[[str], None]) -> dict[str, Any]:
    dimension = _dimension(store)
    source = store / Collection.MEMORIES.value
    report: dict[str, Any] = {"store": str(store), "layouts": {}}
    with tempfile.TemporaryDirectory(prefix="cortex-bench-open-") as folder:
        for layout in layouts:
            target = Path(folder) / layout
            built = build(source, target, LAYOUTS[layout], dimension)
            report["layouts"][layout] = {**built, **time_open(target, dimension)}
            say(f"{layout}: {report['layouts'][layout]}")
            shutil.rmtree(target)
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.store_open")
    parser.add_argument("store", type=Path, help="a store folder ($CORTEX_HOME/store), closed")
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated")
    parser.add_argument(
        "--grow", type=int, metavar="N", help="write the store N points at a time, compacting"
    )
    parser.add_argument("--compact-after", type=int, default=COMPACT_AFTER, metavar="N")
    args = parser.parse_args(argv)
    if args.grow is not None:
        if args.grow < 1 or args.compact_after < 1:
            parser.error("--grow and --compact-after take a number of points, at least 1")
        print(json.dumps(measure_growth(args.store, args.grow, args.compact_after), indent=2))
        return 0
    layouts = [layout for layout in args.layouts.split(",") if layout]
    unknown = sorted(set(layouts) - set(LAYOUTS))
    if unknown:
        parser.error(f"unknown layout {unknown[0]!r}; choose from {', '.join(LAYOUTS)}")
    report = measure(args.store, layouts, lambda line: print(line, file=sys.stderr))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
