"""Running eval datasets: each in a fresh embedded store with the dataset's clock.

A dataset is ingested and embedded once; then every variant runs the dataset's queries
against that same store with its own recall settings. Ingestion goes through the same
engine calls a user's commands do (`remember` for `ingest: write`), so the eval measures
the product, not a test harness.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from cortex_tui.capture.heuristic import mentions
from cortex_tui.config import Settings, StoreConfig
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.eval.dataset import Dataset, DatasetMemory
from cortex_tui.eval.expectations import check_expectations
from cortex_tui.eval.measured import MeasuredEmbedder
from cortex_tui.eval.report import DatasetRun, EvalRun, Miss, QueryOutcome, VariantInfo
from cortex_tui.eval.through_capture import SteppedClock, capture_ingest, ranked_with_quotes
from cortex_tui.eval.variants import Variant
from cortex_tui.models import Memory, MemoryDraft
from cortex_tui.recall.request import RecallRequest

MIN_DEPTH = 10
EMBED_BATCH = 64
_EVAL_IDS = uuid.UUID("6f1c0d52-6a8e-4c55-9d0e-3b5a2f1e7c40")  # namespace of eval memory ids

Progress = Callable[[int, int, str], None]
"""(done, total, what): called as each phase of a run advances."""


def run_eval(
    datasets: Sequence[Dataset],
    variants: Sequence[Variant],
    embedder: Embedder,
    cutoffs: list[int] | None,
    keep_under: Path | None = None,
    progress: Progress | None = None,
    link_entities: bool = False,
) -> EvalRun:
    """Every dataset under every variant; `variants[0]` is the base run. With
    `link_entities`, each memory is linked to the entities capture would find in it."""
    started = time.perf_counter()
    measured = embedder if isinstance(embedder, MeasuredEmbedder) else MeasuredEmbedder(embedder)
    runs = []
    for dataset in datasets:
        if keep_under is not None:
            folder = keep_under / "eval" / dataset.name
            if folder.exists():
                shutil.rmtree(folder)
            runs.append(
                _run_in(folder, dataset, variants, measured, cutoffs, progress, link_entities)
            )
        else:
            with tempfile.TemporaryDirectory(prefix="cortex-eval-") as tmp:
                runs.append(
                    _run_in(
                        Path(tmp), dataset, variants, measured, cutoffs, progress, link_entities
                    )
                )
        measured.forget_queries()
    return EvalRun(
        variants=[VariantInfo(name=v.name, changes=v.changes) for v in variants],
        datasets=runs,
        seconds=time.perf_counter() - started,
    )


def _isolated(settings: Settings) -> Settings:
    """Eval never touches the user's store, nor a Qdrant server they configured."""
    return settings.model_copy(update={"store": StoreConfig()})


def _run_in(
    folder: Path,
    dataset: Dataset,
    variants: Sequence[Variant],
    embedder: MeasuredEmbedder,
    cutoffs: list[int] | None,
    progress: Progress | None,
    link_entities: bool,
) -> DatasetRun:
    """Ingest and embed the dataset once, then one recall pass per variant."""
    base = _isolated(variants[0].settings)
    clock = SteppedClock(dataset.now)
    with closing(
        open_engine(base, clock=clock, embedder=embedder, store_path=folder / "store")
    ) as engine:
        started = time.perf_counter()
        embedding_before = embedder.seconds
        notes = list(dataset.notes)
        if dataset.ingest == "capture":
            labels: dict[str, str] = {}
            holders, skipped = capture_ingest(engine, dataset, clock, progress)
            notes += skipped
        else:
            labels = ingest(engine, dataset, progress)
            holders = {label: {memory_id} for label, memory_id in labels.items()}
        if link_entities and labels:
            notes.append(link_mentions(engine, dataset.name, labels.values(), progress))
        for done, query in enumerate(dataset.queries, 1):
            embedder.embed_query(query.query)  # once, for every variant
            _advance(progress, done, len(dataset.queries), f"embedding {dataset.name} queries")
        embedding = embedder.seconds - embedding_before
        ingest_seconds = time.perf_counter() - started - embedding
        failed, passed, total = check_expectations(engine, dataset, labels)
        by_id: dict[str, str] = {}
        for label, held_by in holders.items():
            for memory_id in sorted(held_by):
                by_id.setdefault(memory_id, label)
        outcomes: dict[str, list[QueryOutcome]] = {}
        seconds: dict[str, float] = {}
        for variant in variants:
            variant_started = time.perf_counter()
            ranker = engine.with_settings(_isolated(variant.settings))
            outcomes[variant.name] = [
                _run_query(
                    ranker, dataset, index, (labels, holders), by_id, cutoffs or dataset.cutoffs
                )
                for index in _advancing(progress, dataset, f"{variant.name} · {dataset.name}")
            ]
            seconds[variant.name] = time.perf_counter() - variant_started
    return DatasetRun(
        name=dataset.name,
        memories=len(dataset.memories),
        apart=dataset.apart,
        notes=notes,
        ingest_seconds=ingest_seconds,
        embedding_seconds=embedding,
        expectations_passed=passed,
        expectations_total=total,
        failed_expectations=failed,
        outcomes=outcomes,
        variant_seconds=seconds,
    )


def _advancing(progress: Progress | None, dataset: Dataset, what: str) -> Iterator[int]:
    """The dataset's query indexes, reporting each one done."""
    total = len(dataset.queries)
    for index in range(total):
        yield index
        _advance(progress, index + 1, total, what)


def _advance(progress: Progress | None, done: int, total: int, what: str) -> None:
    if progress is not None:
        progress(done, total, what)


def ingest(
    engine: LocalEngine, dataset: Dataset, progress: Progress | None = None
) -> dict[str, str]:
    """Store the dataset's memories; returns label → id of the memory that holds it."""
    total = len(dataset.memories)
    if dataset.ingest == "raw":
        memories: list[Memory] = [
            engine.materialise(_draft(m)).model_copy(update={"id": _stable_id(dataset, m)})
            for m in dataset.memories
        ]
        for start in range(0, total, EMBED_BATCH):
            batch = memories[start : start + EMBED_BATCH]
            vectors = engine.embedder.embed([m.content for m in batch])
            engine.insert(batch, vectors=vectors)
            _advance(progress, start + len(batch), total, f"embedding {dataset.name} memories")
        return {m.label: memory.id for m, memory in zip(dataset.memories, memories, strict=True)}
    labels: dict[str, str] = {}
    for done, item in enumerate(dataset.memories, 1):
        result = engine.remember(_draft(item))
        labels[item.label] = result.memory.id
        _advance(progress, done, total, f"ingest {dataset.name}")
    return labels


def link_mentions(
    engine: LocalEngine, name: str, ids: Iterable[str], progress: Progress | None = None
) -> str:
    """Link each memory to the entities and relations capture would find in it (what a
    conversation stored raw lacks); returns a note of what was linked."""
    memories = engine.store.get_memories(list(dict.fromkeys(ids)))
    linked = 0
    for done, memory in enumerate(memories, 1):
        entities, relations = mentions(memory.content)
        if entities or relations:
            engine.link(memory, entities, relations)
            linked += 1
        _advance(progress, done, len(memories), f"linking {name} entities")
    entities_now = len(engine.store.all_entities())
    return f"{name}: {linked} of {len(memories)} memories linked to {entities_now} entities"


def _stable_id(dataset: Dataset, item: DatasetMemory) -> str:
    """The same id on every run: equal scores break by id, and with random ids two
    identical runs differed (LoCoMo R@10 by 0.2 overall, 0.7 on one conversation)."""
    return str(uuid.uuid5(_EVAL_IDS, f"{dataset.name}/{item.label}"))


def _draft(item: DatasetMemory) -> MemoryDraft:
    """A dataset's memory is a draft with a label to find it by: every field but the
    label carries over as it is."""
    return MemoryDraft(**item.model_dump(exclude={"label"}))


def _run_query(
    engine: LocalEngine,
    dataset: Dataset,
    index: int,
    held: tuple[dict[str, str], Mapping[str, set[str]]],
    by_id: dict[str, str],
    cutoffs: list[int],
) -> QueryOutcome:
    """`held`: label → the memory stored for it (stored raw or written), and label → the
    ids of everything that holds it (captured: memories and archived messages)."""
    labels, holders = held
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
    if dataset.ingest == "capture" and engine.settings.archive.enabled:
        # Captured, the archive is read beside the memories (a variant with the archive
        # off reads what capture's memories alone hold).
        ids = ranked_with_quotes(response.results, engine.archive.search(q.query, q.project, depth))
    rank = {memory_id: position for position, memory_id in enumerate(ids, 1)}

    def rank_of(label: str) -> int | None:
        """1-based rank of the best of what holds `label` (folded labels share one)."""
        return min((rank[i] for i in holders.get(label, ()) if i in rank), default=None)

    relevant = list(dict.fromkeys(q.relevant))
    recall_at = {
        k: (sum(1 for label in relevant if (rank_of(label) or k + 1) <= k) / len(relevant))
        if relevant
        else None
        for k in ks
    }
    complete_at = {
        k: all((rank_of(label) or k + 1) <= k for label in relevant) if relevant else None
        for k in ks
    }
    positions = [p for label in relevant if (p := rank_of(label)) is not None]
    reciprocal = 1.0 / min(positions) if positions else 0.0
    top1 = None if q.first is None else rank_of(q.first) == 1
    forbidden = [label for label in q.forbidden if (rank_of(label) or q.k + 1) <= q.k]
    misses: list[Miss] = []
    if dataset.explain_misses:
        expected = list(relevant)
        if q.first and q.first not in expected:
            expected.append(q.first)
        for label in expected:
            position = rank_of(label)
            if position is not None and position <= q.k and (label != q.first or position == 1):
                continue
            misses.append(_explain_miss(engine, request, label, labels[label], by_id))
        misses.extend(
            Miss(
                query=q.query,
                label=label,
                rank=rank_of(label),
                why="forbidden memory appears in the top k",
            )
            for label in forbidden
        )
    return QueryOutcome(
        category=q.category,
        recall_at=recall_at,
        complete_at=complete_at,
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
            for name in ("relevance", "type", "recency", "scope")
        )
        why = f"score {result.score:.3f} ({parts})"
        if top is not None:
            name = labels_by_id.get(top.memory.id, top.memory.short_id)
            why += f"; #1 is {name} at {top.score:.3f}"
    return Miss(query=query, label=label, rank=explanation.rank, why=why)
