"""Where a team server's tenants live on Qdrant: collections of their own, or one shared
collection partitioned by a `tenant` payload field with Qdrant's tenant index.

    python -m cortex_tui.bench.tenant_layouts [--url URL] [--shapes 8x10000,100x1000]

For each shape (tenants x memories each) and layout, random unit vectors of the default
model's dimension are written, then `--queries` searches of random tenants are timed
(top 10; the partitioned layout filters by tenant, as a tenant's every read would have
to), and the memory they take is read: the Qdrant server's resident memory (`/metrics`)
with `--url`, else this process's (qdrant-client's local mode, which is what the test
suite runs the server backend on). What it found is in docs/operations.md ("Team server").
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass

import httpx
import numpy as np
from qdrant_client import QdrantClient, models

DIMENSION = 384
BATCH = 1000
PREFIX = "cortex-layouts"


@dataclass
class Measured:
    layout: str
    tenants: int
    per_tenant: int
    query_p50_ms: float
    query_p95_ms: float
    memory_mb: float
    write_s: float


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.tenant_layouts")
    parser.add_argument("--url", help="a Qdrant server (default: qdrant-client's local mode)")
    parser.add_argument("--shapes", default="8x10000,100x1000", help="TENANTSxMEMORIES,...")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # LAYOUT:TENANTSxMEMORIES, in a child
    args = parser.parse_args(argv)
    if args.one:
        layout, shape = args.one.split(":")
        tenants, per_tenant = (int(part) for part in shape.split("x"))
        print(json.dumps(asdict(measure(args.url, layout, tenants, per_tenant, args.queries))))
        return 0
    found: list[Measured] = []
    for shape in args.shapes.split(","):
        for layout in ("collections", "partitioned"):
            found.append(_in_child(args.url, layout, shape.lower(), args.queries))
            report = found[-1]
            if not args.json:
                print(
                    f"{layout:12} {report.tenants:4} x {report.per_tenant:6}: query p50 "
                    f"{report.query_p50_ms:6.2f} ms, p95 {report.query_p95_ms:6.2f} ms, "
                    f"memory {report.memory_mb:7.1f} MB, written in {report.write_s:5.1f} s",
                    flush=True,
                )
    if args.json:
        print(json.dumps([asdict(item) for item in found], indent=2))
    return 0


def _in_child(url: str | None, layout: str, shape: str, queries: int) -> Measured:
    """Each measurement in a process of its own: a process's memory is not handed back
    when a collection is dropped, so the next one would be measured on top of it."""
    command = [
        sys.executable,
        "-m",
        __spec__.name if __spec__ else "cortex_tui.bench.tenant_layouts",
    ]
    command += ["--one", f"{layout}:{shape}", "--queries", str(queries)]
    if url:
        command += ["--url", url]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return Measured(**json.loads(done.stdout))


def measure(url: str | None, layout: str, tenants: int, per_tenant: int, queries: int) -> Measured:
    client = QdrantClient(url=url) if url else QdrantClient(location=":memory:")
    before = _memory_mb(client, url)
    rng = np.random.default_rng(7)
    names = [f"t{index}" for index in range(tenants)]
    started = time.perf_counter()
    if layout == "collections":
        for name in names:
            _create(client, f"{PREFIX}-{name}", partitioned=False)
            _fill(client, f"{PREFIX}-{name}", rng, per_tenant, name)
    else:
        _create(client, f"{PREFIX}-shared", partitioned=True)
        for name in names:
            _fill(client, f"{PREFIX}-shared", rng, per_tenant, name)
    written = time.perf_counter() - started
    used = _memory_mb(client, url) - before
    picker = random.Random(11)
    times = []
    for _ in range(queries):
        name = picker.choice(names)
        vector = _unit(rng, 1)[0].tolist()
        began = time.perf_counter()
        if layout == "collections":
            client.query_points(f"{PREFIX}-{name}", query=vector, limit=10)
        else:
            only = models.Filter(
                must=[models.FieldCondition(key="tenant", match=models.MatchValue(value=name))]
            )
            client.query_points(f"{PREFIX}-shared", query=vector, limit=10, query_filter=only)
        times.append((time.perf_counter() - began) * 1000)
    for collection in client.get_collections().collections:
        if collection.name.startswith(PREFIX):
            client.delete_collection(collection.name)
    client.close()
    return Measured(
        layout,
        tenants,
        per_tenant,
        round(statistics.median(times), 2),
        round(statistics.quantiles(times, n=20)[18], 2),
        round(used, 1),
        round(written, 1),
    )


def _create(client: QdrantClient, name: str, *, partitioned: bool) -> None:
    """As Qdrant's multitenancy guide says for a partitioned collection: the tenant field
    indexed as the tenant, and the graph built per tenant rather than across them."""
    hnsw = models.HnswConfigDiff(payload_m=16, m=0) if partitioned else None
    client.create_collection(
        name,
        vectors_config=models.VectorParams(size=DIMENSION, distance=models.Distance.COSINE),
        hnsw_config=hnsw,
    )
    if partitioned:
        client.create_payload_index(
            name,
            "tenant",
            field_schema=models.KeywordIndexParams(
                type=models.KeywordIndexType.KEYWORD, is_tenant=True
            ),
        )


def _fill(
    client: QdrantClient, name: str, rng: np.random.Generator, count: int, tenant: str
) -> None:
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        vectors = _unit(rng, size)
        client.upsert(
            name,
            points=[
                models.PointStruct(
                    id=str(uuid.uuid4()), vector=vector.tolist(), payload={"tenant": tenant}
                )
                for vector in vectors
            ],
            wait=True,
        )


def _unit(rng: np.random.Generator, count: int) -> np.ndarray:
    matrix = rng.normal(size=(count, DIMENSION)).astype(np.float32)
    unit: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


def _memory_mb(client: QdrantClient, url: str | None) -> float:
    """The server's resident memory, or this process's (local mode grows in it)."""
    del client
    if url:
        metrics = httpx.get(f"{url.rstrip('/')}/metrics", timeout=30).text
        for line in metrics.splitlines():
            if line.startswith("memory_resident_bytes "):
                return float(line.split()[1]) / 1e6
        return float("nan")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    sys.exit(main())
