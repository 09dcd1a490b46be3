"""The context reading of the dense channel: a memory of a conversation also has a
context vector (itself and the turn before it, `write/neighbours.py`), read as
`context_weight` × its cosine when that beats the memory's own; the context vectors are
searched too when `context_candidates` asks for it."""

from __future__ import annotations

from collections.abc import Sequence

from cortex_tui.config import RecallConfig
from cortex_tui.embed.base import Matrix
from cortex_tui.models import Memory
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.channels.base import ChannelQuery
from cortex_tui.recall.scoring import Evidence
from cortex_tui.store.base import Store


def reads_context(config: RecallConfig, store: Store) -> bool:
    return config.context_weight > 0 and store.indexes_context


def gather_context(query: ChannelQuery, pool: Pool) -> None:
    """The memories nearest by their context vectors; payloads are read only for the
    few the own-vector search did not bring."""
    limit = query.context_limit
    hits = query.store.search_ids(query.vector, query.filter, limit, context=True)
    pool.add(query.store, [memory_id for memory_id, _ in hits])
    for memory_id, cosine in hits:
        candidate = pool.candidates.get(memory_id)
        if candidate is not None:
            candidate.context_cosine = cosine
            candidate.dense_found = True
            pool.context_order.append(memory_id)
    pool.context_bound = hits[-1][1] if len(hits) >= limit else -1.0


def fill_context(query: ChannelQuery, pool: Pool) -> None:
    """Context cosines the search did not give, only where the context could be the one
    read: above the list's bound, the memory's own cosine wins."""
    bound = pool.context_bound
    reach = 2.0 if bound is None else query.config.context_weight * bound
    missing = [
        c.memory.id
        for c in pool.candidates.values()
        if c.context_cosine is None and (c.cosine or 0.0) < reach
    ]
    if missing:
        found = query.store.cosines(query.vector, missing, context=True)
        for memory_id, cosine in found.items():
            pool.candidates[memory_id].context_cosine = cosine


def complete_context(
    store: Store, shown: Sequence[tuple[Memory, Evidence]], vector: Matrix
) -> None:
    """Context cosines of results whose context was not needed to rank them (their own
    cosine beats any context cosine under the context list's bound), so the breakdown
    shows both."""
    missing = {memory.id: evidence for memory, evidence in shown if evidence.context_cosine is None}
    if not missing:
        return
    for memory_id, cosine in store.cosines(vector, list(missing), context=True).items():
        missing[memory_id].context_cosine = cosine
