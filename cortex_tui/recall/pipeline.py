"""Recall: gather candidates from the channels, score each one, rank, format.

The channels (`recall/channels/`: dense, lexical and graph; the dense one also reads
context and sentence vectors) all run under the same `MemoryFilter` inside the store's
queries. Each gathers its candidates, then completes what it knows about every
candidate the others found, so each one is scored on the same evidence; fusion reads
their scores and ranks (`recall/fusion.py`), the priors refine it (`recall/scoring.py`)
and the relevance gate decides what bears on the query (`recall/gate.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from cortex_tui.clock import Clock
from cortex_tui.config import FusionMode, RecallConfig, RecallWeights
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.format import format_context
from cortex_tui.graph.index import GraphIndex
from cortex_tui.llm.base import LLMClient
from cortex_tui.models import (
    Explanation,
    GateEvidence,
    HeldBack,
    Memory,
    Quote,
    RecallResponse,
    RecallResult,
)
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.channels import CHANNELS
from cortex_tui.recall.channels.archive import ArchiveChannel, ArchiveQuery
from cortex_tui.recall.channels.base import ChannelQuery
from cortex_tui.recall.channels.context import complete_context, reads_context
from cortex_tui.recall.channels.dense import DenseChannel, read_cosine, reads
from cortex_tui.recall.channels.lexical import LexicalChannel
from cortex_tui.recall.channels.parts import name_sentences
from cortex_tui.recall.exclusion import exclusion_reason
from cortex_tui.recall.fusion import ChannelScale, relevance
from cortex_tui.recall.gate import Floors, apply_gate, gate_evidence, gate_pool, gate_reads
from cortex_tui.recall.gate_calibration import CosineScale
from cortex_tui.recall.request import RecallRequest
from cortex_tui.recall.rerank import rerank
from cortex_tui.recall.scoring import (
    Evidence,
    Multipliers,
    QueryContext,
    Score,
    breakdown,
    query_context,
    score,
)
from cortex_tui.store.base import MemoryFilter, Store
from cortex_tui.store.lexical import indexed_words, query_coverage, tokenize

EXPLAIN_POOL = 500
DENSE = DenseChannel.name
LEXICAL = LexicalChannel.name


class Recaller:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: RecallConfig,
        clock: Clock,
        graph: Callable[[], GraphIndex],
        weights_for: Callable[[str | None], RecallWeights],
        llm: LLMClient | None = None,
        *,
        part_texts: Callable[[str], list[str]],
        scale: Callable[[], CosineScale],
        shown: Callable[[Memory], Memory] = lambda memory: memory,
        archive: ArchiveChannel | None = None,
    ) -> None:
        """`shown`: a memory as a recall may hand it out (the privacy step's read guard),
        applied before an LLM re-ranks or the context block is written. `part_texts`:
        the sentences a memory's parts were made of (to name the one that matched).
        `scale`: this model's cosines on the gate's reference scale (made on first use:
        a model other than the reference is calibrated once, `recall/gate_calibration.py`).
        `archive`: the turn archive's channel, for requests that include it (None: off)."""
        self._part_texts = part_texts
        self._scale = scale
        self._archive = archive
        self._store = store
        self._shown = shown
        self._embedder = embedder
        self._config = config
        self._clock = clock
        self._graph = graph
        self._weights_for = weights_for
        self._llm = llm

    def recall(self, request: RecallRequest) -> RecallResponse:
        started = time.perf_counter()
        limit = request.limit or self._config.default_limit
        vector = self._embedder.embed_query(request.query)
        flt = request.memory_filter()
        pool = self._gather(
            request, flt, vector, self._config.dense_candidates, self._config.context_candidates
        )
        ranked = self._rank(request, pool)
        if request.given_already:
            given = set(request.given_already)
            ranked = [r for r in ranked if r.memory.id not in given]
        floors = (
            None
            if request.min_relevance is None
            else Floors.of(request.min_relevance, self._config.gate_companion_floor)
        )
        read = ranked[: limit if floors is None else gate_pool(limit)]
        self._complete_context(read, vector)
        gates = [self._gate_of(r) for r in read]
        positions: Sequence[int] = range(len(read))
        # A reranker may reorder the whole pool, so it is given every result.
        if floors is not None and self._llm is None:
            positions = gate_reads([gate.relevance for gate in gates], floors, limit)
        results = [self._show(read[i].result(i + 1, gates[i])) for i in positions]
        if self._llm is not None:
            budget = request.rerank_budget_ms
            if budget is None:
                budget = self._config.rerank_budget_ms_interactive
            results = rerank(self._llm, request.query, results, self._config.rerank_spread, budget)
        held_back: list[HeldBack] = []
        if floors is not None:
            kept = apply_gate(results, floors, limit)
            results, held_back = kept.given, kept.held_back
        quotes: list[Quote] = []
        if request.include_archive and self._archive is not None:
            floor = (floors or Floors.of(self._config.gate_floor, None)).floor
            asked = ArchiveQuery(request.query, vector, flt, floor)
            quotes = self._archive.quotes(self._store, asked, results)
        context = format_context(
            results,
            self._clock(),
            request.budget_tokens or self._config.budget_tokens,
            self._config.chars_per_token,
            request.max_chars,
            quotes,
        )
        return RecallResponse(
            query=request.query,
            results=results,
            context=context,
            candidates=len(pool.candidates),
            elapsed_ms=(time.perf_counter() - started) * 1000,
            held_back=held_back,
            quotes=quotes,
        )

    def _gate_of(self, ranked: _Ranked) -> GateEvidence:
        """How much the candidate bears on the query, on absolute evidence."""
        cosine = ranked.evidence.read_cosine
        return gate_evidence(
            cosine,
            self._scale()(cosine),
            ranked.evidence.lexical_score,
            ranked.evidence.graph_hops,
        )

    def explain(self, request: RecallRequest, memory: Memory) -> Explanation:
        """Where `memory` ranks for the request, even far outside the top-k.

        The candidate pool is widened to `EXPLAIN_POOL` dense hits and the memory itself
        is always scored, so the rank is exact among everything a recall could surface
        from the dense, lexical and graph channels.
        """
        limit = request.limit or self._config.default_limit
        flt = request.memory_filter()
        reason = exclusion_reason(memory, flt)
        shown = self._shown(memory)
        if reason:
            return Explanation(query=request.query, memory=shown, limit=limit, excluded_by=reason)
        vector = self._embedder.embed_query(request.query)
        context_limit = EXPLAIN_POOL if self._config.context_candidates else 0
        pool = self._gather(
            request, flt, vector, EXPLAIN_POOL, context_limit, extra_ids={memory.id}
        )
        ranked = self._rank(request, pool)
        position = next(i for i, r in enumerate(ranked) if r.memory.id == memory.id)
        self._complete_context([*ranked[: min(position, limit)], ranked[position]], vector)
        above = ranked[: min(position, limit)]
        return Explanation(
            query=request.query,
            memory=shown,
            rank=position + 1,
            limit=limit,
            result=self._show(
                ranked[position].result(position + 1, self._gate_of(ranked[position]))
            ),
            above=[self._show(r.result(rank, self._gate_of(r))) for rank, r in enumerate(above, 1)],
        )

    def _show(self, result: RecallResult) -> RecallResult:
        memory = self._shown(result.memory)
        return result if memory is result.memory else result.model_copy(update={"memory": memory})

    def _gather(
        self,
        request: RecallRequest,
        flt: MemoryFilter,
        vector: Matrix,
        dense_limit: int,
        context_limit: int,
        extra_ids: Collection[str] = (),
    ) -> Pool:
        query = ChannelQuery(
            request, flt, vector, self._store, self._config, self._graph, dense_limit, context_limit
        )
        pool = Pool()
        for channel in CHANNELS:
            channel.gather(query, pool)
        missing_extra = [i for i in extra_ids if i not in pool.candidates]
        if missing_extra:
            self._add_scores(request.query, flt, missing_extra, pool, vector)
        for channel in CHANNELS:
            channel.complete(query, pool)
        return pool

    def _complete_context(self, ranked: Sequence[_Ranked], vector: Matrix) -> None:
        """Context cosines of results whose context was not needed to rank them, so the
        breakdown shows both; and the sentence a result was matched by."""
        shown = [(r.memory, r.evidence) for r in ranked]
        name_sentences(self._store, self._part_texts, shown, vector)
        if reads_context(self._config, self._store):
            complete_context(self._store, shown, vector)

    def _add_scores(
        self, query: str, flt: MemoryFilter, ids: list[str], pool: Pool, vector: Matrix
    ) -> None:
        """Score memories "why not?" names on the lexical channel too (BM25 keeps corpus
        IDF), and give them their cosines."""
        restricted = flt.model_copy(update={"ids": ids})
        for hit in self._store.search_lexical(query, restricted, len(ids)):
            pool.get(hit.memory).lexical_score = hit.score
        for hit in self._store.search_dense(vector, restricted, len(ids)):
            pool.get(hit.memory).cosine = hit.score

    def _rank(self, request: RecallRequest, pool: Pool) -> list[_Ranked]:
        """Every candidate scored with plain floats, best first (ties: cosine, then id)."""
        config = self._config
        mode: FusionMode = request.fusion or config.fusion
        weights = (request.weights or self._weights_for(request.profile)).model_dump()
        ctx: QueryContext = query_context(
            request.query, request.project, self._clock(), type_cues=config.query_type_cues
        )
        query_terms = frozenset(tokenize(request.query))
        candidates = list(pool.candidates.values())
        dense_scale = ChannelScale.of(config.dense_norm, pool.top.get(DENSE, []))
        lexical_scale = ChannelScale.of(config.lexical_norm, pool.top.get(LEXICAL, []))
        running = [channel.name for channel in CHANNELS if channel.enabled(config)]
        present = set(pool.candidates)
        multipliers = Multipliers.of(config)
        ranked: list[_Ranked] = []
        for c in candidates:
            context_read, part_read = reads(c, config)
            cosine = read_cosine(c, config)
            # Coverage matters only where BM25 found a term: elsewhere the lexical term is
            # 0 whatever it is, and tokenizing every dense-only candidate costs time.
            coverage: float | None = None
            if c.lexical_score and config.lexical_coverage_power:
                share = query_coverage(query_terms, c.memory.content, indexed_words(c.memory))
                coverage = share**config.lexical_coverage_power
            evidence = Evidence(
                cosine=c.cosine or 0.0,
                context_cosine=c.context_cosine,
                context_read=context_read,
                part_cosine=c.part_cosine,
                part_read=part_read,
                relevance=relevance(
                    mode,
                    cosine=cosine,
                    lexical_score=c.lexical_score,
                    dense_scale=dense_scale,
                    lexical_scale=lexical_scale,
                    ranks=c.hits.values(),
                    channels=len(running),
                    lexical_weight=config.lexical_weight,
                    rrf_k=config.rrf_k,
                    coverage=coverage,
                ),
                lexical_score=c.lexical_score,
                hits={name: c.hits.get(name) for name in running},
                graph_hops=c.graph_hops,
                graph_speaker=c.graph_speaker,
            )
            result = score(
                c.memory,
                evidence,
                ctx,
                config,
                weights,
                successor_present=c.memory.superseded_by_id in present,
                multipliers=multipliers,
            )
            ranked.append(_Ranked(c.memory, evidence, result, mode))
        ranked.sort(key=lambda r: (-r.score.final, -r.evidence.read_cosine, r.memory.id))
        return ranked


@dataclass(slots=True)
class _Ranked:
    memory: Memory
    evidence: Evidence
    score: Score
    fusion: str

    def result(self, rank: int, gate: GateEvidence) -> RecallResult:
        return RecallResult(
            memory=self.memory,
            rank=rank,
            score=self.score.final,
            breakdown=breakdown(self.score, self.evidence, self.fusion, gate),
            conflicts_with=_conflict_partners(self.memory),
        )


def _conflict_partners(memory: Memory) -> list[str]:
    if memory.conflict_status.value != "active":
        return []
    return [other[:8] for other in memory.contradicts_ids]
