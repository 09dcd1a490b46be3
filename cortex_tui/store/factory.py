"""Pick the store backend from settings.

Embedded Qdrant Edge at `path` unless `store.qdrant_url` is set; `:memory:` selects
qdrant-client's in-memory mode (tests). qdrant_client is imported only on that branch:
it costs 0.5–0.7 s, which the hook path cannot afford.
"""

from __future__ import annotations

from pathlib import Path

from cortex_tui.config import StoreConfig
from cortex_tui.store.base import Store
from cortex_tui.store.edge import EdgeStore


def open_store(
    settings_store: StoreConfig,
    path: Path,
    embedder_name: str,
    dimension: int,
    *,
    check_embedder: bool = True,
) -> Store:
    """Open (creating when absent) the configured store; see `EdgeStore.open` for
    `check_embedder`."""
    if settings_store.qdrant_url is None:
        return EdgeStore.open(
            path,
            embedder_name,
            dimension,
            check_embedder=check_embedder,
            compact_after=settings_store.compact_after,
        )
    from cortex_tui.store.qdrant_server import QdrantServerStore

    return QdrantServerStore.open(
        settings_store.qdrant_url,
        settings_store.qdrant_api_key,
        settings_store.collection_prefix,
        embedder_name,
        dimension,
        check_embedder=check_embedder,
    )
