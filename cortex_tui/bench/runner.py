"""`cortex-tui bench`: latency and throughput of the parts a hook and the TUI wait on.

Large stores are synthesised: texts come from templates over a team vocabulary, and
their vectors are real model embeddings of a base set of texts plus a small random
perturbation. Embedding 100k texts for real would take minutes and measure nothing the
import benchmark does not already measure; exact vector search costs the same for any
vectors of the same dimension. Every memory is a turn of a conversation (sessions of
20 turns, written through the engine), so each has a context vector and the previous
turn's words in its lexical vector: the store that costs neighbour context the most.
Every other memory has `SYNTHETIC_PARTS` part vectors (perturbed base vectors, as its
own), about as many per memory as LoCoMo's turns have (1.6), so recall pays for reading
them.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.bench.archive import archive_size, fill_archive
from cortex_tui.bench.corpus import synthetic_memory, synthetic_parts, synthetic_texts
from cortex_tui.bench.hooks import bench_hooks
from cortex_tui.bench.mcp_calls import bench_mcp
from cortex_tui.bench.timing import Timing, time_query_embedding
from cortex_tui.bench.tui_runs import bench_first_frame, bench_views
from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings, StoreConfig, load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.factory import make_embedder
from cortex_tui.engine.core import WRITE_BATCH
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.maintenance.restore import restore_backup
from cortex_tui.models import Memory, MemoryDraft
from cortex_tui.recall.request import RecallRequest

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
BASE_TEXTS = 1500
UPSERT_BATCH = 1024
IMPORT_COUNT = 2000
REMEMBER_COUNT = 300
HOOK_RUNS = 20
COLD_RUNS = 10
HOOK_STORE_SIZE = 1000
SYNTHETIC_PARTS = 3
SESSION_TURNS = 20
SYNC_LINES = 10_000
SYNC_SAVES = 20
LOAD_SESSIONS = 8
LOAD_TURNS = 25


@dataclass
class BenchOptions:
    sizes: list[int]
    queries: int = 200
    embedder: str = "onnx"
    import_count: int = IMPORT_COUNT
    remember_count: int = REMEMBER_COUNT
    hook_runs: int = HOOK_RUNS
    archive_turns: int = 0
    """Turns in the hook store's archive (two messages each)."""
    cold_runs: int = COLD_RUNS
    sync_lines: int = SYNC_LINES
    sync_saves: int = SYNC_SAVES
    load_sessions: int = LOAD_SESSIONS
    load_turns: int = LOAD_TURNS
    load_think_ms: int = 0
    views: list[int] = field(default_factory=list)
    first_frame_runs: int = 0
    privacy: list[Path] | None = None
    """Corpora for the privacy row (the demo store is always one); None: no such row."""


def run_bench(options: BenchOptions, progress: Callable[[str], None] | None) -> dict[str, Any]:
    say = progress or (lambda _message: None)
    settings = load_settings().model_copy(update={"store": StoreConfig()})
    settings.embedder.kind = "onnx" if options.embedder == "onnx" else "hashing"
    started = time.perf_counter()
    embedder = make_embedder(settings.embedder, settings.models_path)
    load_seconds = time.perf_counter() - started
    queries = synthetic_texts(options.queries, seed=7)
    report: dict[str, Any] = {
        "embedder": embedder.name,
        "embedder_load_ms": round(load_seconds * 1000, 1),
        "query_embedding": time_query_embedding(embedder, queries),
    }
    say(f"query embedding: {report['query_embedding']}")
    report["import"] = _time_import(settings, embedder, options.import_count)
    say(f"import: {report['import']}")
    report["remember"] = _time_remember(settings, embedder, options.remember_count)
    say(f"remember: {report['remember']}")
    report["capture"] = _time_capture(settings, embedder, options.remember_count)
    say(f"capture: {report['capture']}")
    if options.privacy is not None:
        from cortex_tui.bench.privacy import bench_privacy, privacy_corpora

        report["privacy"] = bench_privacy(privacy_corpora(options.privacy))
        say(f"privacy step on texts with no secret: {report['privacy']}")
    base_texts = synthetic_texts(BASE_TEXTS, seed=1)
    base_vectors = embedder.embed(base_texts)
    report["stores"] = []
    for size in options.sizes:
        with tempfile.TemporaryDirectory(prefix="cortex-bench-") as tmp:
            entry = _bench_size(settings, embedder, Path(tmp), size, base_vectors, queries)
        say(f"{size} memories: {entry}")
        report["stores"].append(entry)
    seed = lambda home: _seed_hook_store(  # noqa: E731
        settings, embedder, home, base_vectors, options.archive_turns
    )
    if options.hook_runs:
        _hook_rows(report, options, settings, embedder, base_vectors, seed, queries, say)
    if options.cold_runs:
        from cortex_tui.bench.cold_start import bench_cold_start

        report["cold_start"] = bench_cold_start(seed, settings.embedder.kind, options.cold_runs)
        say(
            f"first prompt with no service running ({HOOK_STORE_SIZE} memories): "
            f"{report['cold_start']}"
        )
    if options.load_sessions and options.load_turns:
        from cortex_tui.bench.load import bench_load

        report["load"] = bench_load(
            seed,
            settings.embedder.kind,
            options.load_sessions,
            options.load_turns,
            options.load_think_ms / 1000,
        )
        say(
            f"agent sessions at once through the service ({HOOK_STORE_SIZE} memories): "
            f"{report['load']}"
        )
    if options.sync_lines or options.sync_saves:
        from cortex_tui.bench.sync import bench_sync

        report["sync"] = bench_sync(settings.embedder.kind, options.sync_lines, options.sync_saves)
        say(f"file sync through the service: {report['sync']}")
    if options.views:
        report["views"] = bench_views(settings.embedder.kind, options.views)
        say(f"TUI overview panes, key to drawn: {report['views']}")
    if options.first_frame_runs:
        report["first_frame"] = bench_first_frame(settings.embedder.kind, options.first_frame_runs)
        say(f"TUI first frame (demo; empty store, no service): {report['first_frame']}")
    return report


def _hook_rows(
    report: dict[str, Any],
    options: BenchOptions,
    settings: Settings,
    embedder: Embedder,
    base_vectors: np.ndarray[Any, np.dtype[np.float32]],
    seed: Callable[[Path], None],
    queries: list[str],
    say: Callable[[str], None],
) -> None:
    """The hooks and MCP calls through a real service, on a store of `HOOK_STORE_SIZE`
    memories and `archive_turns` archived turns (with what the archive takes on disk)."""
    turns = options.archive_turns
    report["hooks"] = bench_hooks(seed, settings.embedder.kind, queries, options.hook_runs)
    opened = lambda folder: _engine(settings, embedder, folder)  # noqa: E731
    report["hooks"]["archive"] = archive_size(opened, base_vectors, turns, PROJECTS, NOW)
    where = f"{HOOK_STORE_SIZE} memories, {turns} archived turns"
    say(f"hooks through the service ({where}): {report['hooks']}")
    report["mcp"] = bench_mcp(seed, settings.embedder.kind, queries, options.hook_runs)
    say(f"MCP tool calls over stdio ({HOOK_STORE_SIZE} memories): {report['mcp']}")


def _seed_hook_store(
    settings: Settings,
    embedder: Embedder,
    home: Path,
    base_vectors: np.ndarray[Any, np.dtype[np.float32]],
    archive_turns: int = 0,
) -> None:
    rng = random.Random(HOOK_STORE_SIZE)
    memories = _memories(synthetic_texts(HOOK_STORE_SIZE, seed=3), rng)
    vectors = base_vectors[np.arange(HOOK_STORE_SIZE) % len(base_vectors)]
    engine = open_engine(settings, embedder=embedder, store_path=home / "store")
    try:
        engine.insert(memories, vectors=vectors.astype(np.float32))
        fill_archive(engine.store, base_vectors, archive_turns, PROJECTS, NOW)
    finally:
        engine.close()


def _time_remember(settings: Settings, embedder: Embedder, count: int) -> dict[str, float]:
    """One `remember` after another into a growing store: embedding, neighbour search,
    the judge on each neighbour and the write. The texts come from shared templates, so
    many have close neighbours and the judge runs as it does on a real store."""
    texts = synthetic_texts(count, seed=5)
    with tempfile.TemporaryDirectory(prefix="cortex-bench-remember-") as tmp:
        engine = _engine(settings, embedder, Path(tmp))
        try:
            engine.remember(MemoryDraft(content="warm up"))
            timing = Timing()
            for text in texts:
                t0 = time.perf_counter()
                engine.remember(MemoryDraft(content=text))
                timing.samples.append(time.perf_counter() - t0)
        finally:
            engine.close()
    return {"memories": count, **timing.summary()}


def _time_capture(settings: Settings, embedder: Embedder, count: int) -> dict[str, float]:
    """One turn after another through `capture` (the heuristic extractor, no LLM), as
    the service captures a hook's turn: the privacy step, extraction, then each
    candidate through the write path. A turn is two sentences said and one answered."""
    said = synthetic_texts(count * 2, seed=11)
    answered = synthetic_texts(count, seed=13)
    turns = [
        f"User: From now on {said[2 * i][0].lower()}{said[2 * i][1:]} "
        f"Also, {said[2 * i + 1][0].lower()}{said[2 * i + 1][1:]}\n"
        f"Assistant: Understood. {answered[i]}"
        for i in range(count)
    ]
    with tempfile.TemporaryDirectory(prefix="cortex-bench-capture-") as tmp:
        engine = _engine(settings, embedder, Path(tmp))
        try:
            engine.capture("User: warm up the capture path.\nAssistant: Done.")
            timing = Timing()
            for turn in turns:
                t0 = time.perf_counter()
                engine.capture(turn, session_id="bench")
                timing.samples.append(time.perf_counter() - t0)
        finally:
            engine.close()
    return {"turns": count, **timing.summary()}


def _time_import(settings: Settings, embedder: Embedder, count: int) -> dict[str, float]:
    """JSONL import through the engine (parse, embed in batches, upsert, flush), and the
    same texts through the model alone: what the store adds to the embedding's share."""
    from cortex_tui.maintenance.transfer import dump_line

    memories = _memories(synthetic_texts(count, seed=3), random.Random(3))
    lines = [dump_line(m) for m in memories]
    with tempfile.TemporaryDirectory(prefix="cortex-bench-import-") as tmp:
        engine = _engine(settings, embedder, Path(tmp))
        try:
            t0 = time.perf_counter()
            engine.upkeep.import_lines(lines)
            seconds = time.perf_counter() - t0
        finally:
            engine.close()
    t0 = time.perf_counter()  # after the import: the model is as warm as it was there
    for start in range(0, count, WRITE_BATCH):  # in the batches import embeds
        embedder.embed([m.content for m in memories[start : start + WRITE_BATCH]])
    embedding_seconds = time.perf_counter() - t0
    return {
        "memories": count,
        "seconds": round(seconds, 2),
        "per_second": round(count / seconds, 1),
        "embedding_texts_per_second": round(count / embedding_seconds, 1),
    }


def _bench_size(
    settings: Settings,
    embedder: Embedder,
    folder: Path,
    size: int,
    base_vectors: np.ndarray[Any, np.dtype[np.float32]],
    queries: list[str],
) -> dict[str, Any]:
    rng = random.Random(size)
    noise = np.random.default_rng(size)
    engine = _engine(settings, embedder, folder)
    t0 = time.perf_counter()
    for start in range(0, size, UPSERT_BATCH):
        count = min(UPSERT_BATCH, size - start)
        memories = _memories(synthetic_texts(count, seed=size + start), rng, first=start)
        picks = noise.integers(0, len(base_vectors), count)
        vectors = base_vectors[picks] + noise.normal(0, 0.02, (count, base_vectors.shape[1]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        parts = [
            synthetic_parts(base_vectors, noise, SYNTHETIC_PARTS if i % 2 else 0)
            for i in range(count)
        ]
        engine.insert(memories, vectors=vectors.astype(np.float32), parts=parts)
    build_seconds = time.perf_counter() - t0
    engine.close()
    fresh = _measure_store(settings, embedder, folder, queries)
    engine = _engine(settings, embedder, folder)
    t0 = time.perf_counter()
    engine.store.optimize()
    optimize_seconds = time.perf_counter() - t0
    engine.close()
    optimized = _measure_store(settings, embedder, folder, queries)
    return {
        "memories": size,
        "build_seconds": round(build_seconds, 1),
        "as_written": fresh,
        "optimize_seconds": round(optimize_seconds, 1),
        "after_optimize": optimized,
        **_time_backup(settings, embedder, folder),
    }


def _time_backup(settings: Settings, embedder: Embedder, folder: Path) -> dict[str, float]:
    """A backup of the store, then its restore over it (which backs the replaced store
    up first: that is part of what a restore costs)."""
    engine = _engine(settings, embedder, folder)
    try:
        backup = engine.upkeep.backup(str(folder / "bench.cortex-backup"))
    finally:
        engine.close()
    restored = restore_backup(settings.model_copy(update={"home": folder}), Path(backup.path))
    return {
        "backup_seconds": round(backup.seconds, 2),
        "backup_megabytes": round(backup.bytes / 1_000_000, 1),
        "restore_seconds": round(restored.seconds, 2),
    }


def _measure_store(
    settings: Settings, embedder: Embedder, folder: Path, queries: list[str]
) -> dict[str, Any]:
    """Open time (fresh open, store already in the page cache) and recall latency."""
    opened = Timing()
    for _ in range(3):
        t0 = time.perf_counter()
        engine = _engine(settings, embedder, folder)
        opened.samples.append(time.perf_counter() - t0)
        engine.close()
    engine = _engine(settings, embedder, folder)
    named = [f"what did the user say about {query}" for query in queries]
    graph_off = settings.model_copy(deep=True)
    graph_off.recall.graph_candidates = 0
    try:
        return {
            "open": opened.summary(),
            "recall": _time_recall(engine, queries, project=None),
            "recall_project_filter": _time_recall(engine, queries, project="atlas"),
            # A speaker the query names adds a search of what they said (half the store);
            # the same queries with the graph channel off are its baseline.
            "recall_named_speaker": _time_recall(engine, named, project=None),
            "recall_named_speaker_graph_off": _time_recall(
                engine.with_settings(graph_off), named, project=None
            ),
        }
    finally:
        engine.close()


def _time_recall(engine: LocalEngine, queries: list[str], project: str | None) -> dict[str, float]:
    engine.recall(RecallRequest(query="warm up", update_access=False))
    timing = Timing()
    for query in queries:
        t0 = time.perf_counter()
        engine.recall(RecallRequest(query=query, project=project, limit=10, update_access=False))
        timing.samples.append(time.perf_counter() - t0)
    return timing.summary()


def _engine(settings: Settings, embedder: Embedder, folder: Path) -> LocalEngine:
    return open_engine(
        settings, clock=frozen_clock(NOW), embedder=embedder, store_path=folder / "store"
    )


PROJECTS = ("atlas", "harbor", "lighthouse", "quay", None, None)


def _memories(texts: list[str], rng: random.Random, first: int = 0) -> list[Memory]:
    """Memories of the texts, as turns of sessions of `SESSION_TURNS` (`first` is the
    position of the first text in the whole synthetic conversation)."""
    return [
        synthetic_memory(
            text,
            rng,
            NOW,
            PROJECTS,
            session_id=f"bench-{position // SESSION_TURNS}",
            turn=position % SESSION_TURNS,
            speaker=("user", "assistant")[position % 2],
        )
        for position, text in enumerate(texts, first)
    ]
