"""The lexical channel's candidates, measured against each other.

    python -m cortex_tui.bench.lexical_backends [--locomo locomo10.json] [--sizes 10000,100000]

Four ways to rank memories by BM25, each as the engine would hold them:

- `cortex`: this project's tokenizer (code identifiers kept whole and split, Snowball
  English stems, a short stop list) encoding sparse vectors that Qdrant Edge scores with
  its IDF modifier — what the store does;
- `edge-bm25`: the same sparse vectors, encoded by Qdrant Edge's own `Bm25` model
  (word tokenizer, English stop words and Snowball stems, in Rust);
- `edge-text`: Qdrant Edge's BM25 over a full-text payload index with scoring (document
  statistics kept by the index, no vectors at all);
- `bm25s`: the `bm25s` package's in-memory index (its tokenizer with PyStemmer); it has
  no incremental update, so adding a memory rebuilds it, and no filter inside a query;
  `bm25s-cortex-tokens` is the same index over this project's tokens (the scorer alone).

For each, at every size: the time to build the index, to add one memory to a full
index, a query's p50 over the top 50 and the index's size. With `--locomo`, each
backend alone ranks the turns of LoCoMo's development conversations (turns without
neighbour context: only `cortex` can weight a previous turn's words) and reports R@5,
R@10 and MRR. `bm25s` is optional (`pip install -e ".[research]"`); without it its rows
are left out and said so.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import qdrant_edge as qe

from cortex_tui.bench.corpus import synthetic_texts
from cortex_tui.eval.locomo import locomo_datasets
from cortex_tui.store.lexical import encode_document, encode_query, tokenize

DEVELOPMENT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
TOP = 50
QUERIES = 200
_SPARSE = "lexical"
Encode = Callable[[str], tuple[list[int], list[float]]]
_TEXT = "content"


class Backend(Protocol):
    """One lexical index over a list of texts; ids are the texts' positions."""

    def add(self, texts: Sequence[str]) -> None: ...

    def search(self, query: str, limit: int) -> list[tuple[int, float]]: ...

    def size_bytes(self) -> int: ...

    def close(self) -> None: ...


class _EdgeSparse:
    """Sparse vectors in an Edge shard, scored with the IDF modifier."""

    def __init__(
        self,
        folder: Path,
        encode: Encode,
        encode_query: Encode,
    ) -> None:
        self._folder = folder
        self._encode = encode
        self._encode_query = encode_query
        sparse = {_SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
        self._shard = qe.EdgeShard.create(str(folder), qe.EdgeConfig(sparse_vectors=sparse))
        self._count = 0

    def add(self, texts: Sequence[str]) -> None:
        points = []
        for text in texts:
            indices, values = self._encode(text)
            vector: dict[str, Any] = {_SPARSE: qe.SparseVector(indices, values)} if indices else {}
            points.append(qe.Point(_point_id(self._count), vector, {"n": self._count}))
            self._count += 1
        for start in range(0, len(points), 1024):
            self._shard.update(qe.UpdateOperation.upsert_points(points[start : start + 1024]))
        self._shard.flush()

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        indices, values = self._encode_query(query)
        if not indices:
            return []
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(qe.SparseVector(indices, values), using=_SPARSE),
            with_payload=True,
        )
        return [(int((p.payload or {})["n"]), p.score) for p in self._shard.query(request)]

    def size_bytes(self) -> int:
        return _folder_size(self._folder)

    def close(self) -> None:
        self._shard.close()


class _EdgeText:
    """Qdrant Edge's BM25 over a full-text payload index with scoring."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._shard = qe.EdgeShard.create(
            str(folder), qe.EdgeConfig(sparse_vectors={"none": qe.EdgeSparseVectorParams()})
        )
        params = qe.TextIndexParams(
            tokenizer=qe.TokenizerType.Word,
            lowercase=True,
            stopwords=qe.StopwordsSet(languages={qe.Language.English}),
            stemmer=qe.SnowballParams(language=qe.SnowballLanguage.English),
            scoring=qe.TextScoringParams(type=qe.TextScoringType.Bm25),
        )
        self._shard.update(qe.UpdateOperation.create_field_index(_TEXT, params))
        self._count = 0

    def add(self, texts: Sequence[str]) -> None:
        points = []
        for text in texts:
            points.append(qe.Point(_point_id(self._count), {}, {_TEXT: text, "n": self._count}))
            self._count += 1
        for start in range(0, len(points), 1024):
            self._shard.update(qe.UpdateOperation.upsert_points(points[start : start + 1024]))
        self._shard.flush()

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        request = qe.QueryRequest(limit=limit, query=qe.TextQuery(_TEXT, query), with_payload=["n"])
        try:
            found = self._shard.query(request)
        except Exception:  # a query of stop words only has no term to score
            return []
        return [(int((p.payload or {})["n"]), p.score) for p in found]

    def size_bytes(self) -> int:
        return _folder_size(self._folder)

    def close(self) -> None:
        self._shard.close()


class _Bm25s:
    """bm25s in memory; adding texts rebuilds the index (it has no incremental update).
    Its own tokenizer (a regex, a 33-word stop list, PyStemmer), or this project's."""

    def __init__(self, own_tokens: bool) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self._stemmer = Stemmer.Stemmer("english")
        self._own_tokens = own_tokens
        self._texts: list[str] = []
        self._index: Any = None

    def _tokens(self, texts: Sequence[str]) -> list[list[str]]:
        if self._own_tokens:
            return [tokenize(text) for text in texts]
        # As strings: the ids of two tokenize() calls would name two vocabularies.
        tokens: list[list[str]] = self._bm25s.tokenize(
            list(texts),
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        return tokens

    def add(self, texts: Sequence[str]) -> None:
        self._texts.extend(texts)
        self._index = self._bm25s.BM25()
        self._index.index(self._tokens(self._texts), show_progress=False)

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        tokens = self._tokens([query])
        if not tokens[0]:
            return []
        k = min(limit, len(self._texts))
        ids, scores = self._index.retrieve(tokens, k=k, show_progress=False)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if s > 0]

    def size_bytes(self) -> int:
        scores = self._index.scores
        return int(sum(scores[key].nbytes for key in ("data", "indices", "indptr")))

    def close(self) -> None:
        self._index = None


def _cortex_document(text: str) -> tuple[list[int], list[float]]:
    return encode_document(text)


def _cortex_query(text: str) -> tuple[list[int], list[float]]:
    return encode_query(text)


def _edge_bm25() -> tuple[Encode, Encode]:
    model = qe.Bm25(qe.Bm25Config(avg_len=24.0, language="english"))

    def document(text: str) -> tuple[list[int], list[float]]:
        vector = model.embed_document(text)
        return list(vector.indices), list(vector.values)

    def query(text: str) -> tuple[list[int], list[float]]:
        vector = model.embed_query(text)
        return list(vector.indices), list(vector.values)

    return document, query


def _make(name: str, folder: Path) -> Backend:
    if name == "cortex":
        return _EdgeSparse(folder, _cortex_document, _cortex_query)
    if name == "edge-bm25":
        document, query = _edge_bm25()
        return _EdgeSparse(folder, document, query)
    if name == "edge-text":
        return _EdgeText(folder)
    return _Bm25s(own_tokens=name == "bm25s-cortex-tokens")


@dataclass
class Speed:
    backend: str
    size: int
    build_s: float
    add_one_ms: float
    query_p50_ms: float
    size_mb: float


def measure_speed(name: str, size: int, queries: Sequence[str], folder: Path) -> Speed:
    texts = synthetic_texts(size, seed=size)
    backend = _make(name, folder / f"{name}-{size}")
    try:
        started = time.perf_counter()
        backend.add(texts[:-1])
        build = time.perf_counter() - started
        started = time.perf_counter()
        backend.add(texts[-1:])
        add_one = time.perf_counter() - started
        backend.search("warm up the index", TOP)
        samples = []
        for query in queries:
            started = time.perf_counter()
            backend.search(query, TOP)
            samples.append(time.perf_counter() - started)
        return Speed(
            name,
            size,
            round(build, 2),
            round(add_one * 1000, 2),
            round(statistics.median(samples) * 1000, 2),
            round(backend.size_bytes() / 1e6, 1),
        )
    finally:
        backend.close()


@dataclass
class Quality:
    backend: str
    queries: int
    recall_at_5: float
    recall_at_10: float
    mrr: float


def measure_quality(
    name: str, locomo: Path, folder: Path, conversations: Sequence[str] = DEVELOPMENT
) -> Quality:
    """Each conversation's turns in a fresh index, its questions (without the adversarial
    ones, as `eval` reports them) ranked by this backend alone."""
    raw = json.loads(locomo.read_text(encoding="utf-8"))
    at5: list[float] = []
    at10: list[float] = []
    reciprocal: list[float] = []
    for dataset in locomo_datasets(raw, locomo):
        if dataset["name"] not in conversations:
            continue
        memories = dataset["memories"]
        labels = [m["label"] for m in memories]
        backend = _make(name, folder / f"{name}-{dataset['name']}")
        try:
            backend.add([f"{m['content']} {m['speaker']}" for m in memories])
            for query in dataset["queries"]:
                if query["category"] == "adversarial":
                    continue
                ranked = [labels[i] for i, _ in backend.search(query["query"], TOP)]
                relevant = set(query["relevant"])
                at5.append(len(relevant & set(ranked[:5])) / len(relevant))
                at10.append(len(relevant & set(ranked[:10])) / len(relevant))
                first = next((r for r, label in enumerate(ranked, 1) if label in relevant), 0)
                reciprocal.append(1 / first if first else 0.0)
        finally:
            backend.close()
    return Quality(
        name,
        len(at10),
        round(100 * statistics.fmean(at5), 1),
        round(100 * statistics.fmean(at10), 1),
        round(statistics.fmean(reciprocal), 3),
    )


def _available(names: Sequence[str]) -> tuple[list[str], list[str]]:
    try:
        import bm25s  # noqa: F401
    except ImportError:
        missing = "bm25s is not installed (pip install bm25s): its rows are left out"
        return [n for n in names if not n.startswith("bm25s")], [missing]
    return list(names), []


def _point_id(number: int) -> str:
    return str(uuid.UUID(int=number + 1))


def _folder_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.lexical_backends")
    parser.add_argument("--locomo", type=Path, help="locomo10.json, for the quality rows")
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args(argv)
    names, notes = _available(["cortex", "edge-bm25", "edge-text", "bm25s", "bm25s-cortex-tokens"])
    queries = synthetic_texts(QUERIES, seed=7)
    folder = Path(tempfile.mkdtemp(prefix="cortex-lexical-"))
    report: dict[str, Any] = {"notes": notes, "speed": [], "quality": []}
    try:
        if args.locomo:
            for name in names:
                report["quality"].append(measure_quality(name, args.locomo, folder).__dict__)
                print(json.dumps(report["quality"][-1]), flush=True)
        for size in (int(s) for s in args.sizes.split(",")):
            for name in names:
                report["speed"].append(measure_speed(name, size, queries, folder).__dict__)
                print(json.dumps(report["speed"][-1]), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
