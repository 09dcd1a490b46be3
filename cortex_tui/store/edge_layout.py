"""What each shard of the embedded store looks like: its vectors, its payload indexes
and how it is compacted.

Edge has no named collections, so each collection is its own shard. An Edge shard must
declare at least one vector, and a payload-only point must still fit it: relations and
journal declare one sparse vector slot ("none") that no point fills, which costs nothing
(a 1-d dense dummy would store and index a vector for every point).

Points are written into a shard's appendable segment, which rebuilds its payload indexes
in RAM on every open; `compact` (the service, once quiet) folds it into an immutable
segment that maps them from disk, so a store opens in about 0.25 s at 100k memories.

Every filtered field has a payload index (`indexes.py`); indexes missing from an existing
shard are added on open, so a newer version can index more fields without a migration.
"""

from __future__ import annotations

import qdrant_edge as qe

from cortex_tui.config import COMPACT_AFTER
from cortex_tui.store.indexes import IndexKind, indexed_fields
from cortex_tui.store.points import CONTEXT, DENSE, LEXICAL, PARTS, RECORDS, Collection

_UNUSED_SPARSE = "none"
IndexSchema = (
    qe.KeywordIndexParams | qe.DatetimeIndexParams | qe.IntegerIndexParams | qe.TextIndexParams
)
_EDGE_INDEX: dict[IndexKind, IndexSchema] = {
    "keyword": qe.KeywordIndexParams(on_disk=True),
    "prefix": qe.KeywordIndexParams(prefix=True, on_disk=True),
    "datetime": qe.DatetimeIndexParams(on_disk=True),
    "integer": qe.IntegerIndexParams(lookup=True, range=True, on_disk=True),
    "text": qe.TextIndexParams(tokenizer=qe.TokenizerType.Word, lowercase=True, on_disk=True),
}

SEGMENTS = 4
"""Segments a compaction merges a shard down to: each one costs an open its own indexes
(15 of 7k memories opened in 0.81 s, 4 of 25k in 0.31 s, 1 of 100k in 0.25 s), while
every merge holds the GIL in proportion to what it merges (up to 8 s at 100k)."""
_NO_GRAPH = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000)
"""No HNSW graph, exact search in every segment: graphs made compacting 100k memories
five times longer (111 s against 22 s), and every merge rebuilds them while it holds the
GIL. Recall at 100k costs 32.0 ms p50 without them (27.8 with, 36.0 as written)."""


MEMORY_VECTORS: tuple[tuple[str, ...], ...] = ((DENSE, CONTEXT, PARTS), (DENSE, CONTEXT), (DENSE,))
"""The memories shard's vectors, this version's first, then those of older stores (before
part vectors, before context vectors): a shard keeps the vectors it was created with."""


def shard_config(
    coll: Collection,
    dimension: int,
    *,
    vectors: tuple[str, ...] = MEMORY_VECTORS[0],
    compact_after: int = COMPACT_AFTER,
) -> qe.EdgeConfig:
    """A shard's layout. The memories' vectors stay on disk (memory-mapped, in the page
    cache once searched) instead of being read in whole on every open: a third of the open
    at 100k (`python -m cortex_tui.bench.store_open`). A compaction (`compact`) turns the
    segment being written into an immutable one, which maps its payload indexes instead
    of rebuilding them in RAM on every open, once it holds `compact_after` memories'
    vectors (Edge counts kilobytes of the largest vector storage)."""
    steps = qe.EdgeOptimizersConfig(
        default_segment_number=SEGMENTS,
        indexing_threshold=max(1, compact_after * dimension * 4 // 1024),
    )
    if coll in RECORDS:
        mapped = {name: _memory_vector(name, dimension) for name in vectors}
        lexical = {LEXICAL: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
        return qe.EdgeConfig(
            vectors=mapped, sparse_vectors=lexical, hnsw_config=_NO_GRAPH, optimizers=steps
        )
    if coll is Collection.ENTITIES:
        dense = {DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)}
        return qe.EdgeConfig(vectors=dense, hnsw_config=_NO_GRAPH, optimizers=steps)
    unused = {_UNUSED_SPARSE: qe.EdgeSparseVectorParams()}
    return qe.EdgeConfig(sparse_vectors=unused, hnsw_config=_NO_GRAPH, optimizers=steps)


def _memory_vector(name: str, dimension: int) -> qe.EdgeVectorParams:
    """A memory vector slot; parts score a point by its best part (MaxSim)."""
    if name != PARTS:
        return qe.EdgeVectorParams(
            size=dimension, distance=qe.Distance.Cosine, memory=qe.Memory.Cold
        )
    best_part = qe.MultiVectorConfig(comparator=qe.MultiVectorComparator.MaxSim)
    return qe.EdgeVectorParams(
        size=dimension,
        distance=qe.Distance.Cosine,
        memory=qe.Memory.Cold,
        multivector_config=best_part,
    )


def payload_indexes(coll: Collection) -> dict[str, IndexSchema]:
    """`indexed_fields` as Edge indexes, kept on disk: a compacted segment maps its
    indexes instead of rebuilding them in RAM on every open (0.88 -> 0.39 s at 100k);
    the segment written to meanwhile keeps its own in RAM either way."""
    return {field: _EDGE_INDEX[kind] for field, kind in indexed_fields(coll).items()}
