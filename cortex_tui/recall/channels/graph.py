"""The graph channel: memories the names in the query reach — those mentioning an entity
near one it names, and those said by a speaker it names."""

from __future__ import annotations

from cortex_tui.config import RecallConfig
from cortex_tui.models import ChannelHit
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.channels.base import ChannelQuery


class GraphChannel:
    name = "graph"

    def enabled(self, config: RecallConfig) -> bool:
        return bool(config.graph_candidates)

    def gather(self, query: ChannelQuery, pool: Pool) -> None:
        """The first `graph_candidates` of the memories the query's names reach, by hop
        distance and then cosine, join the candidates; `complete` gives every other
        candidate they reach its distance too."""
        config = query.config
        if not self.enabled(config):
            return
        graph = query.graph()
        if not graph:
            return
        text, store, vector, flt = query.request.query, query.store, query.vector, query.filter
        threshold = config.graph_match_threshold
        pool.entity_hops = graph.memory_hops(text, threshold, config.graph_max_hops)
        pool.named_speakers = frozenset(
            graph.speakers_in(text, threshold, first_person=config.first_person_speaker)
        )
        distance: dict[str, int] = {}
        cosines: dict[str, float] = {}
        if pool.entity_hops:
            closest = sorted(pool.entity_hops, key=lambda memory_id: pool.entity_hops[memory_id])
            allowed = closest[: config.graph_candidates * 4]
            restricted = flt.model_copy(update={"ids": allowed})
            for memory_id, cosine in store.search_ids(vector, restricted, len(allowed)):
                distance[memory_id], cosines[memory_id] = pool.entity_hops[memory_id], cosine
        if pool.named_speakers:
            said = flt.model_copy(update={"speakers": sorted(pool.named_speakers)})
            for memory_id, cosine in store.search_ids(vector, said, config.graph_candidates):
                distance[memory_id], cosines[memory_id] = 1, cosine  # said by whom it names
        # The channel's own order: hop distance first, then cosine.
        ordered = sorted(distance, key=lambda i: (distance[i], -cosines[i], i))
        listed = ordered[: config.graph_candidates]
        pool.add(store, listed)
        for rank, memory_id in enumerate(listed, 1):
            candidate = pool.candidates.get(memory_id)
            if candidate is not None:  # None: forgotten since the search
                candidate.cosine = cosines[memory_id]
                candidate.hits[self.name] = ChannelHit(rank=rank, score=1.0 / distance[memory_id])

    def complete(self, query: ChannelQuery, pool: Pool) -> None:
        """Graph distance for every candidate, whichever channel found it: a memory said
        by the person the query names is as near when the dense channel found it."""
        if not (pool.entity_hops or pool.named_speakers):
            return
        for candidate in pool.candidates.values():
            candidate.graph_hops, candidate.graph_speaker = pool.hops_of(candidate.memory)
