"""The dense channel: cosine between the query's vector and each memory's, searched over
the memories' own vectors (and their context vectors, `channels/context.py`). Whatever
channel found a candidate, it gets its real cosine, so the breakdown never shows a
made-up similarity. The cosine it reads is the best of the memory's own, its context's
and its best sentence's (`channels/parts.py`), each weighted."""

from __future__ import annotations

from cortex_tui.config import RecallConfig
from cortex_tui.models import ChannelHit
from cortex_tui.recall.candidates import Candidate, Pool
from cortex_tui.recall.channels.base import ChannelQuery
from cortex_tui.recall.channels.context import fill_context, gather_context, reads_context
from cortex_tui.recall.channels.parts import fill_parts, reads_parts


class DenseChannel:
    name = "dense"

    def enabled(self, config: RecallConfig) -> bool:
        return True

    def gather(self, query: ChannelQuery, pool: Pool) -> None:
        for hit in query.store.search_dense(query.vector, query.filter, query.dense_limit):
            candidate = pool.get(hit.memory)
            candidate.cosine = hit.score
            candidate.dense_found = True
            pool.dense_order.append(hit.memory.id)
        if reads_context(query.config, query.store) and query.context_limit:
            gather_context(query, pool)

    def complete(self, query: ChannelQuery, pool: Pool) -> None:
        """Own, sentence and context cosines the searches did not give, computed by the
        store (ids and scores only: reading the vectors out cost 3 ms a hook at 1k);
        then the channel's order."""
        missing = [c.memory.id for c in pool.candidates.values() if c.cosine is None]
        if missing:
            for memory_id, cosine in query.store.cosines(query.vector, missing).items():
                pool.candidates[memory_id].cosine = cosine
        if reads_parts(query.config, query.store):
            fill_parts(query, pool)
        if reads_context(query.config, query.store):
            fill_context(query, pool)
        self._rank(query.config, pool)

    def _rank(self, config: RecallConfig, pool: Pool) -> None:
        """The channel's order (its candidates by the cosine recall reads) and its top
        list: the first `dense_candidates` of the own-vector search and the first
        `context_candidates` of the context search, however far "why not?" reaches."""
        found = [(read_cosine(c, config), c) for c in pool.candidates.values() if c.dense_found]
        found.sort(key=lambda pair: (-pair[0], pair[1].memory.id))
        for rank, (cosine, candidate) in enumerate(found, 1):
            candidate.hits[self.name] = ChannelHit(rank=rank, score=cosine)
        top = dict.fromkeys(
            pool.dense_order[: config.dense_candidates]
            + pool.context_order[: config.context_candidates]
        )
        pool.top[self.name] = [read_cosine(pool.candidates[i], config) for i in top]


def reads(candidate: Candidate, config: RecallConfig) -> tuple[float | None, float | None]:
    """The weighted context cosine and the weighted best-sentence cosine, each when the
    channel reads it (it beats the memory's own and the other); None where it reads the
    own cosine. They are only ever gathered when recall reads them."""
    own = candidate.cosine or 0.0
    context = part = None
    if candidate.context_cosine is not None:
        context = config.context_weight * candidate.context_cosine
    if candidate.part_cosine is not None:
        part = config.part_weight * candidate.part_cosine
    if part is not None and part > own and (context is None or part > context):
        return None, part
    if context is not None and context > own:
        return context, None
    return None, None


def read_cosine(candidate: Candidate, config: RecallConfig) -> float:
    """The cosine the channel reads: the context's or a sentence's when it matched
    better."""
    context, part = reads(candidate, config)
    if part is not None:
        return part
    return (candidate.cosine or 0.0) if context is None else context
