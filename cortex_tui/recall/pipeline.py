"""Recall: gather candidates from three channels, score each one, rank, format.

Channels: dense (cosine over the query vector), lexical (BM25) and graph (memories that
mention entities near the ones the query names, and memories said by a speaker it
names). All three run under the same `MemoryFilter` inside the store's queries.
Whatever channel found a candidate, it gets its real cosine similarity, so the
breakdown never shows a made-up similarity.

A memory of a conversation also has a context vector (itself and the turn before it,
`write/neighbours.py`): the dense channel reads each memory by the better of its own
cosine and `context_weight` × its context cosine (and searches the context vectors too
when `context_candidates` asks for it). A memory of several sentences also has part
vectors (`write/parts.py`): the channel reads it by `part_weight` × its best sentence's
cosine when that is better still. Parts are read for the candidates alone, never
searched: a fact said in passing lifts a memory another channel found.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from cortex_tui.clock import Clock
from cortex_tui.config import FusionMode, RecallConfig, RecallWeights
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.format import format_context
from cortex_tui.graph.index import GraphIndex
from cortex_tui.llm.base import LLMClient
from cortex_tui.models import (
    ChannelHit,
    Explanation,
    GateEvidence,
    HeldBack,
    Memory,
    RecallResponse,
    RecallResult,
)
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


@dataclass(slots=True)
class _Candidate:
    memory: Memory
    cosine: float | None = None
    context_cosine: float | None = None
    part_cosine: float | None = None
    dense_found: bool = False
    lexical_score: float | None = None
    dense: ChannelHit | None = None
    lexical: ChannelHit | None = None
    graph: ChannelHit | None = None
    graph_hops: int | None = None
    graph_speaker: str | None = None


@dataclass(slots=True)
class _Pool:
    candidates: dict[str, _Candidate] = field(default_factory=dict)
    dense_top: list[float] = field(default_factory=list)
    """Scores of the dense channel's top list: what its normalisation reads."""
    dense_order: list[str] = field(default_factory=list)
    """Ids in the order the own-vector search found them."""
    context_order: list[str] = field(default_factory=list)
    """Ids in the order the context search found them."""
    lexical_top: list[float] = field(default_factory=list)
    context_bound: float | None = None
    """No memory outside the context list has a context cosine above this: the list's
    lowest cosine when it is full, -1 when it holds every memory with a context. None
    without a list: every candidate's context cosine must be looked up."""

    entity_hops: dict[str, int] = field(default_factory=dict)
    """Memories mentioning an entity near one the query names → hop distance."""
    named_speakers: frozenset[str] = frozenset()
    """Speakers the query names."""

    def hops_of(self, memory: Memory) -> tuple[int | None, str | None]:
        """The memory's graph distance from the query's names, and the named speaker who
        said it (1 hop, as near as mentioning a named entity)."""
        if memory.speaker is not None and memory.speaker in self.named_speakers:
            return 1, memory.speaker
        return self.entity_hops.get(memory.id), None

    def get(self, memory: Memory) -> _Candidate:
        found = self.candidates.get(memory.id)
        if found is None:
            found = self.candidates[memory.id] = _Candidate(memory)
        return found


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
    ) -> None:
        """`shown`: a memory as a recall may hand it out (the privacy step's read guard),
        applied before an LLM re-ranks or the context block is written. `part_texts`:
        the sentences a memory's parts were made of (to name the one that matched).
        `scale`: this model's cosines on the gate's reference scale (made on first use:
        a model other than the reference is calibrated once, `recall/gate_calibration.py`)."""
        self._part_texts = part_texts
        self._scale = scale
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
        context = format_context(
            results,
            self._clock(),
            request.budget_tokens or self._config.budget_tokens,
            self._config.chars_per_token,
            request.max_chars,
        )
        return RecallResponse(
            query=request.query,
            results=results,
            context=context,
            candidates=len(pool.candidates),
            elapsed_ms=(time.perf_counter() - started) * 1000,
            held_back=held_back,
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
    ) -> _Pool:
        pool = _Pool()
        for hit in self._store.search_dense(vector, flt, dense_limit):
            candidate = pool.get(hit.memory)
            candidate.cosine = hit.score
            candidate.dense_found = True
            pool.dense_order.append(hit.memory.id)
        if self._reads_context and context_limit:
            self._gather_context(flt, vector, context_limit, pool)
        if self._config.lexical_candidates:
            lexical = self._store.search_lexical(
                request.query, flt, self._config.lexical_candidates
            )
            for rank, hit in enumerate(lexical, 1):
                candidate = pool.get(hit.memory)
                candidate.lexical_score = hit.score
                candidate.lexical = ChannelHit(rank=rank, score=hit.score)
            pool.lexical_top = [hit.score for hit in lexical]
        self._gather_graph(request, flt, vector, pool)
        missing_extra = [i for i in extra_ids if i not in pool.candidates]
        if missing_extra:
            self._add_lexical_scores(request.query, flt, missing_extra, pool, vector)
        self._mark_graph(pool)
        self._fill_cosines(vector, pool)
        self._rank_dense(pool)
        if self._config.lexical_fill and self._config.lexical_candidates:
            self._fill_lexical(request.query, pool)
        return pool

    def _gather_context(self, flt: MemoryFilter, vector: Matrix, limit: int, pool: _Pool) -> None:
        """The memories nearest by their context vectors; payloads are read only for the
        few the own-vector search did not bring."""
        hits = self._store.search_ids(vector, flt, limit, context=True)
        self._add_candidates(pool, [memory_id for memory_id, _ in hits])
        for memory_id, cosine in hits:
            candidate = pool.candidates.get(memory_id)
            if candidate is not None:
                candidate.context_cosine = cosine
                candidate.dense_found = True
                pool.context_order.append(memory_id)
        pool.context_bound = hits[-1][1] if len(hits) >= limit else -1.0

    def _complete_context(self, ranked: Sequence[_Ranked], vector: Matrix) -> None:
        """Context cosines of results whose context was not needed to rank them (their
        own cosine beats any context cosine under the context list's bound), so the
        breakdown shows both; and the sentence a result was matched by."""
        self._name_sentences(ranked, vector)
        if not self._reads_context:
            return
        missing = {r.memory.id: r for r in ranked if r.evidence.context_cosine is None}
        for memory_id, cosine in self._cosines(vector, list(missing), context=True).items():
            missing[memory_id].evidence.context_cosine = cosine

    def _name_sentences(self, ranked: Sequence[_Ranked], vector: Matrix) -> None:
        """The sentence each shown result was matched by, where the channel read one."""
        by_part = {r.memory.id: r for r in ranked if r.evidence.part_read is not None}
        if not by_part:
            return
        query = np.asarray(vector, dtype=np.float32)
        for memory_id, parts in self._store.get_parts(list(by_part)).items():
            texts = self._part_texts(by_part[memory_id].memory.content)
            if len(texts) == len(parts):  # else the memory was split by other settings
                best = int(np.argmax(np.asarray(parts, dtype=np.float32) @ query))
                by_part[memory_id].evidence.matched_sentence = texts[best]

    @property
    def _reads_context(self) -> bool:
        return self._config.context_weight > 0 and self._store.indexes_context

    @property
    def _reads_parts(self) -> bool:
        return self._config.part_weight > 0 and self._store.indexes_parts

    def _rank_dense(self, pool: _Pool) -> None:
        """The dense channel's order (its candidates by the cosine recall reads) and its
        top list: the first `dense_candidates` of the own-vector search and the first
        `context_candidates` of the context search, however far "why not?" reaches."""
        found = [(self._dense_cosine(c), c) for c in pool.candidates.values() if c.dense_found]
        found.sort(key=lambda pair: (-pair[0], pair[1].memory.id))
        for rank, (cosine, candidate) in enumerate(found, 1):
            candidate.dense = ChannelHit(rank=rank, score=cosine)
        top = dict.fromkeys(
            pool.dense_order[: self._config.dense_candidates]
            + pool.context_order[: self._config.context_candidates]
        )
        pool.dense_top = [self._dense_cosine(pool.candidates[memory_id]) for memory_id in top]

    def _reads(self, candidate: _Candidate) -> tuple[float | None, float | None]:
        """The weighted context cosine and the weighted best-sentence cosine, each when
        the dense channel reads it (it beats the memory's own and the other); None
        where it reads the own cosine. They are only ever gathered when recall reads
        them."""
        own = candidate.cosine or 0.0
        context = part = None
        if candidate.context_cosine is not None:
            context = self._config.context_weight * candidate.context_cosine
        if candidate.part_cosine is not None:
            part = self._config.part_weight * candidate.part_cosine
        if part is not None and part > own and (context is None or part > context):
            return None, part
        if context is not None and context > own:
            return context, None
        return None, None

    def _dense_cosine(self, candidate: _Candidate) -> float:
        """The cosine the dense channel reads: the context's or a sentence's when it
        matched better."""
        context, part = self._reads(candidate)
        if part is not None:
            return part
        return (candidate.cosine or 0.0) if context is None else context

    def _gather_graph(
        self, request: RecallRequest, flt: MemoryFilter, vector: Matrix, pool: _Pool
    ) -> None:
        """Memories the names in the query reach: those mentioning an entity near one it
        names, and those said by a speaker it names. The first `graph_candidates` of
        them, by hop distance and then cosine, join the candidates; `_mark_graph` gives
        every other candidate they reach its distance too."""
        if not self._config.graph_candidates:
            return
        graph = self._graph()
        if not graph:
            return
        threshold = self._config.graph_match_threshold
        pool.entity_hops = graph.memory_hops(request.query, threshold, self._config.graph_max_hops)
        pool.named_speakers = frozenset(
            graph.speakers_in(
                request.query, threshold, first_person=self._config.first_person_speaker
            )
        )
        distance: dict[str, int] = {}
        cosines: dict[str, float] = {}
        if pool.entity_hops:
            closest = sorted(pool.entity_hops, key=lambda memory_id: pool.entity_hops[memory_id])
            allowed = closest[: self._config.graph_candidates * 4]
            restricted = flt.model_copy(update={"ids": allowed})
            for memory_id, cosine in self._store.search_ids(vector, restricted, len(allowed)):
                distance[memory_id], cosines[memory_id] = pool.entity_hops[memory_id], cosine
        if pool.named_speakers:
            said = flt.model_copy(update={"speakers": sorted(pool.named_speakers)})
            for memory_id, cosine in self._store.search_ids(
                vector, said, self._config.graph_candidates
            ):
                distance[memory_id], cosines[memory_id] = 1, cosine  # said by whom it names
        # The channel's own order: hop distance first, then cosine.
        ordered = sorted(distance, key=lambda i: (distance[i], -cosines[i], i))
        listed = ordered[: self._config.graph_candidates]
        self._add_candidates(pool, listed)
        for rank, memory_id in enumerate(listed, 1):
            candidate = pool.candidates.get(memory_id)
            if candidate is not None:  # None: forgotten since the search
                candidate.cosine = cosines[memory_id]
                candidate.graph = ChannelHit(rank=rank, score=1.0 / distance[memory_id])

    def _add_candidates(self, pool: _Pool, ids: list[str]) -> None:
        """Make candidates of `ids`, reading payloads only for those not yet in the pool."""
        new = [memory_id for memory_id in ids if memory_id not in pool.candidates]
        for memory in self._store.get_memories(new):
            pool.get(memory)

    @staticmethod
    def _mark_graph(pool: _Pool) -> None:
        """Graph distance for every candidate, whichever channel found it: a memory said
        by the person the query names is as near when the dense channel found it."""
        if not (pool.entity_hops or pool.named_speakers):
            return
        for candidate in pool.candidates.values():
            candidate.graph_hops, candidate.graph_speaker = pool.hops_of(candidate.memory)

    def _add_lexical_scores(
        self, query: str, flt: MemoryFilter, ids: list[str], pool: _Pool, vector: Matrix
    ) -> None:
        """Score named memories on the lexical channel too (BM25 keeps corpus IDF)."""
        restricted = flt.model_copy(update={"ids": ids})
        for hit in self._store.search_lexical(query, restricted, len(ids)):
            pool.get(hit.memory).lexical_score = hit.score
        for hit in self._store.search_dense(vector, restricted, len(ids)):
            pool.get(hit.memory).cosine = hit.score

    def _fill_lexical(self, query: str, pool: _Pool) -> None:
        """BM25 for candidates only the dense or graph channel found: outside the lexical
        top list is not the same as sharing no word with the query."""
        missing = [c.memory.id for c in pool.candidates.values() if c.lexical_score is None]
        for memory_id, bm25 in self._store.lexical_scores(query, missing).items():
            pool.candidates[memory_id].lexical_score = bm25

    def _fill_cosines(self, vector: Matrix, pool: _Pool) -> None:
        """Own and context cosines the searches did not give, computed by the store
        (ids and scores only: reading the vectors out cost 3 ms a hook at 1k).
        Context cosines only where they could be the one read."""
        missing = [c.memory.id for c in pool.candidates.values() if c.cosine is None]
        for memory_id, cosine in self._cosines(vector, missing, context=False).items():
            pool.candidates[memory_id].cosine = cosine
        if self._reads_parts:
            unread = [c.memory.id for c in pool.candidates.values() if c.part_cosine is None]
            for memory_id, cosine in self._store.part_cosines(vector, unread).items():
                pool.candidates[memory_id].part_cosine = cosine
        if not self._reads_context:
            return
        # Only where the context could be the one read: above the bound, own cosine wins.
        bound = pool.context_bound
        reach = 2.0 if bound is None else self._config.context_weight * bound
        missing = [
            c.memory.id
            for c in pool.candidates.values()
            if c.context_cosine is None and (c.cosine or 0.0) < reach
        ]
        for memory_id, cosine in self._cosines(vector, missing, context=True).items():
            pool.candidates[memory_id].context_cosine = cosine

    def _cosines(self, vector: Matrix, ids: list[str], *, context: bool) -> dict[str, float]:
        """Cosines of the query with the stored (own or context) vectors of `ids`."""
        return self._store.cosines(vector, ids, context=context) if ids else {}

    def _rank(self, request: RecallRequest, pool: _Pool) -> list[_Ranked]:
        """Every candidate scored with plain floats, best first (ties: cosine, then id)."""
        config = self._config
        mode: FusionMode = request.fusion or config.fusion
        weights = (request.weights or self._weights_for(request.profile)).model_dump()
        ctx: QueryContext = query_context(
            request.query, request.project, self._clock(), type_cues=config.query_type_cues
        )
        query_terms = frozenset(tokenize(request.query))
        candidates = list(pool.candidates.values())
        dense_scale = ChannelScale.of(config.dense_norm, pool.dense_top)
        lexical_scale = ChannelScale.of(config.lexical_norm, pool.lexical_top)
        channels = 1 + bool(config.lexical_candidates) + bool(config.graph_candidates)
        present = set(pool.candidates)
        multipliers = Multipliers.of(config)
        ranked: list[_Ranked] = []
        for c in candidates:
            context_read, part_read = self._reads(c)
            cosine = self._dense_cosine(c)
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
                    ranks=(c.dense, c.lexical, c.graph),
                    channels=channels,
                    lexical_weight=config.lexical_weight,
                    rrf_k=config.rrf_k,
                    coverage=coverage,
                ),
                lexical_score=c.lexical_score,
                dense=c.dense,
                lexical=c.lexical,
                graph=c.graph,
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
