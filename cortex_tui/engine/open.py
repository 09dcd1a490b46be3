"""Building a `LocalEngine` from settings: the one place that wires adapters together."""

from __future__ import annotations

from pathlib import Path

from cortex_tui.clock import Clock, system_clock
from cortex_tui.config import Settings
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.factory import make_embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.reembed import recover_interrupted
from cortex_tui.llm.base import LLMClient
from cortex_tui.store.factory import open_store


def open_engine(
    settings: Settings,
    *,
    clock: Clock = system_clock,
    embedder: Embedder | None = None,
    store_path: Path | None = None,
    llm: LLMClient | None = None,
) -> LocalEngine:
    """Open the configured store with the configured embedder (or the given one).

    The store is opened after the embedder exists, so a mismatch between the two is
    reported before any write.
    """
    path = store_path or settings.store_path
    recover_interrupted(path)
    chosen = embedder or make_embedder(settings.embedder)
    store = open_store(
        settings.store,
        path,
        chosen.name,
        chosen.dimension,
    )
    return LocalEngine(settings, store, chosen, clock, llm)
