"""The lexical channel: BM25 over the memories' words (and their context's), from the
store's sparse vectors (`store/lexical.py`)."""

from __future__ import annotations

from cortex_tui.config import RecallConfig
from cortex_tui.models import ChannelHit
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.channels.base import ChannelQuery


class LexicalChannel:
    name = "lexical"

    def enabled(self, config: RecallConfig) -> bool:
        return bool(config.lexical_candidates)

    def gather(self, query: ChannelQuery, pool: Pool) -> None:
        if not self.enabled(query.config):
            return
        found = query.store.search_lexical(
            query.request.query, query.filter, query.config.lexical_candidates
        )
        for rank, hit in enumerate(found, 1):
            candidate = pool.get(hit.memory)
            candidate.lexical_score = hit.score
            candidate.hits[self.name] = ChannelHit(rank=rank, score=hit.score)
        pool.top[self.name] = [hit.score for hit in found]

    def complete(self, query: ChannelQuery, pool: Pool) -> None:
        """BM25 for candidates only another channel found: outside the lexical top list
        is not the same as sharing no word with the query."""
        if not (query.config.lexical_fill and self.enabled(query.config)):
            return
        missing = [c.memory.id for c in pool.candidates.values() if c.lexical_score is None]
        scores = query.store.lexical_scores(query.request.query, missing)
        for memory_id, bm25 in scores.items():
            pool.candidates[memory_id].lexical_score = bm25
