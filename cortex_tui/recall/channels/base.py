"""What a recall channel is: a way of finding candidates for a query and placing them.

Each channel gathers (adds candidates and ranks the ones it found, under the request's
filter) and then completes (fills in what it knows about candidates the other channels
found, so every candidate is scored on the same evidence). Its ranks go into each
candidate's `hits` under its name, and from there into the breakdown and reciprocal-rank
fusion; a surface renders `breakdown.channels` without knowing which channels exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cortex_tui.config import RecallConfig
from cortex_tui.embed.base import Matrix
from cortex_tui.graph.index import GraphIndex
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter, Store


@dataclass(frozen=True, slots=True)
class ChannelQuery:
    """One recall's question as every channel asks it."""

    request: RecallRequest
    filter: MemoryFilter
    vector: Matrix
    store: Store
    config: RecallConfig
    graph: Callable[[], GraphIndex]
    dense_limit: int
    """The own-vector search's length (wider for "why not?")."""
    context_limit: int
    """The context search's length (0: none)."""


class Channel(Protocol):
    @property
    def name(self) -> str:
        """Its key in a candidate's hits and in the breakdown's `channels`."""
        ...

    def enabled(self, config: RecallConfig) -> bool:
        """Whether it runs under these settings (reciprocal-rank fusion counts only the
        channels that run)."""
        ...

    def gather(self, query: ChannelQuery, pool: Pool) -> None:
        """Add the candidates it finds, with its ranks."""
        ...

    def complete(self, query: ChannelQuery, pool: Pool) -> None:
        """What it knows about every candidate in the pool, however found."""
        ...
