"""Running eval datasets: each in a fresh embedded store with the dataset's clock.

Ingestion goes through the same engine calls a user's commands do (`remember` for
`ingest: write`), so the eval measures the product, not a test harness.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from cortex_tui.clock import frozen_clock
from cortex_tui.config import Settings, StoreConfig
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.eval.dataset import Dataset, DatasetMemory
from cortex_tui.eval.expectations import check_expectations
from cortex_tui.eval.report import DatasetReport, Miss, QueryOutcome
from cortex_tui.models import Memory, MemoryDraft
from cortex_tui.recall.request import RecallRequest

MIN_DEPTH = 10


def run_datasets(
    datasets: Sequence[Dataset],
    settings: Settings,
    embedder: Embedder,
    cutoffs: list[int] | None,
    keep_under: Path | None = None,
) -> list[DatasetReport]:
    reports = []
    for dataset in datasets:
        if keep_under is not None:
            folder = keep_under / "eval" / dataset.name
            reports.append(_run_in(folder, dataset, settings, embedder, cutoffs, fresh=True))
        else:
            with tempfile.TemporaryDirectory(prefix="cortex-eval-") as tmp:
                reports.append(_run_in(Path(tmp), dataset, settings, embedder, cutoffs))
    return reports


def _run_in(
    folder: Path,
    dataset: Dataset,
    settings: Settings,
    embedder: Embedder,
    cutoffs: list[int] | None,
    fresh: bool = False,
) -> DatasetReport:
    if fresh and folder.exists():
        shutil.rmtree(folder)
    isolated = settings.model_copy(update={"store": StoreConfig()})
    engine = open_engine(
        isolated, clock=frozen_clock(dataset.now), embedder=embedder, store_path=folder / "store"
    )
    try:
        return run_dataset(engine, dataset, cutoffs)
    finally:
        engine.close()


def run_dataset(engine: LocalEngine, dataset: Dataset, cutoffs: list[int] | None) -> DatasetReport:
    started = time.perf_counter()
    labels = ingest(engine, dataset)
    by_id: dict[str, str] = {}
    for label, memory_id in labels.items():
        by_id.setdefault(memory_id, label)
    outcomes = [
        _run_query(engine, dataset, q_index, labels, by_id, cutoffs)
        for q_index in range(len(dataset.queries))
    ]
    failed, passed, total = check_expectations(engine, dataset, labels)
    return DatasetReport(
        name=dataset.name,
        outcomes=outcomes,
        expectations_passed=passed,
        expectations_total=total,
        failed_expectations=failed,
        seconds=time.perf_counter() - started,
    )


def ingest(engine: LocalEngine, dataset: Dataset) -> dict[str, str]:
    """Store the dataset's memories; returns label → id of the memory that holds it."""
    labels: dict[str, str] = {}
    if dataset.ingest == "raw":
        memories: list[Memory] = [engine.materialise(_draft(m)) for m in dataset.memories]
        engine.insert(memories)
        return {m.label: memory.id for m, memory in zip(dataset.memories, memories, strict=True)}
    for item in dataset.memories:
        result = engine.remember(_draft(item))
        labels[item.label] = result.memory.id
    return labels


def _draft(item: DatasetMemory) -> MemoryDraft:
    return MemoryDraft(
        content=item.content,
        type=item.type,
        scope=item.scope,
        project=item.project,
        tags=item.tags,
        confidence=item.confidence,
        created_at=item.created_at,
        last_accessed=item.last_accessed,
        access_count=item.access_count,
        reinforced_count=item.reinforced_count,
        importance=item.importance,
        session_id=item.session_id,
        ttl_hours=item.ttl_hours,
        source=item.source,
    )


def _run_query(
    engine: LocalEngine,
    dataset: Dataset,
    index: int,
    labels: dict[str, str],
    by_id: dict[str, str],
    cutoffs: list[int] | None,
) -> QueryOutcome:
    q = dataset.queries[index]
    ks = cutoffs or [q.k]
    depth = max(*ks, q.k, MIN_DEPTH)
    request = RecallRequest(
        query=q.query,
        project=q.project,
        types=q.type,
        tags=q.tags,
        limit=depth,
        update_access=False,
    )
    response = engine.recall(request)
    ids = [r.memory.id for r in response.results]

    def rank_of(label: str) -> int | None:
        """1-based rank of the memory holding `label` (folded labels share a memory)."""
        memory_id = labels[label]
        return ids.index(memory_id) + 1 if memory_id in ids else None

    relevant = list(dict.fromkeys(q.relevant))
    recall_at = {
        k: (sum(1 for label in relevant if (rank_of(label) or k + 1) <= k) / len(relevant))
        if relevant
        else None
        for k in ks
    }
    positions = [p for label in relevant if (p := rank_of(label)) is not None]
    reciprocal = 1.0 / min(positions) if positions else 0.0
    top1 = None if q.first is None else rank_of(q.first) == 1
    forbidden = [label for label in q.forbidden if (rank_of(label) or q.k + 1) <= q.k]
    misses: list[Miss] = []
    expected = list(relevant)
    if q.first and q.first not in expected:
        expected.append(q.first)
    for label in expected:
        position = rank_of(label)
        if position is not None and position <= q.k and (label != q.first or position == 1):
            continue
        misses.append(_explain_miss(engine, request, label, labels[label], by_id))
    for label in forbidden:
        misses.append(
            Miss(
                query=q.query,
                label=label,
                rank=rank_of(label),
                why="forbidden memory appears in the top k",
            )
        )
    return QueryOutcome(
        recall_at=recall_at,
        reciprocal_rank=reciprocal if relevant else None,
        top1=top1,
        forbidden_hits=len(forbidden),
        misses=misses,
    )


def _explain_miss(
    engine: LocalEngine,
    request: RecallRequest,
    label: str,
    memory_id: str,
    labels_by_id: dict[str, str],
) -> Miss:
    query = request.query
    explanation = engine.explain(request, memory_id)
    if explanation.excluded_by:
        return Miss(query=query, label=label, rank=None, why=explanation.excluded_by)
    result = explanation.result
    why = ""
    if result is not None:
        top = explanation.above[0] if explanation.above else None
        signals = result.breakdown.signals
        parts = ", ".join(
            f"{name} {signals[name].contribution:.3f}"
            for name in ("similarity", "type", "recency", "scope")
        )
        why = f"score {result.score:.3f} ({parts})"
        if top is not None:
            name = labels_by_id.get(top.memory.id, top.memory.short_id)
            why += f"; #1 is {name} at {top.score:.3f}"
    return Miss(query=query, label=label, rank=explanation.rank, why=why)
