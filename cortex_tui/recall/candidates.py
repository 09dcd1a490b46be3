"""The candidate pool a recall gathers: every memory some channel found, with what each
channel learned about it, keyed by the channel's name (`recall/channels/`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cortex_tui.models import ChannelHit, Memory
from cortex_tui.store.base import Store


@dataclass(slots=True)
class Candidate:
    memory: Memory
    cosine: float | None = None
    context_cosine: float | None = None
    part_cosine: float | None = None
    dense_found: bool = False
    lexical_score: float | None = None
    hits: dict[str, ChannelHit] = field(default_factory=dict)
    """Where each channel that ranked it placed it, by the channel's name."""
    graph_hops: int | None = None
    graph_speaker: str | None = None


@dataclass(slots=True)
class Pool:
    candidates: dict[str, Candidate] = field(default_factory=dict)
    top: dict[str, list[float]] = field(default_factory=dict)
    """Each channel's top-list scores, by its name: what its normalisation reads."""
    dense_order: list[str] = field(default_factory=list)
    """Ids in the order the own-vector search found them."""
    context_order: list[str] = field(default_factory=list)
    """Ids in the order the context search found them."""
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

    def get(self, memory: Memory) -> Candidate:
        found = self.candidates.get(memory.id)
        if found is None:
            found = self.candidates[memory.id] = Candidate(memory)
        return found

    def add(self, store: Store, ids: Sequence[str]) -> None:
        """Make candidates of `ids`, reading payloads only for those not yet here."""
        new = [memory_id for memory_id in ids if memory_id not in self.candidates]
        for memory in store.get_memories(new):
            self.get(memory)
