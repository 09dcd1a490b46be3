"""Fixtures for the store contract suite: one store per backend.

Backends: `edge` (a fresh folder), `memory` (qdrant-client `:memory:`) and `server` (a
real Qdrant at `CORTEX_QDRANT_URL`, each test in its own collection prefix; skipped when
the variable is unset).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.store.base import Store

from .helpers import DIM, EMBEDDER

# The server backend joins only when configured; test_store_server_configured reports
# the skip once instead of once per contract test.
BACKENDS = ("edge", "memory", *(("server",) if os.environ.get("CORTEX_QDRANT_URL") else ()))

StoreOpener = Callable[..., Store]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def open_store(backend: str, tmp_path: Path) -> Iterator[StoreOpener]:
    """Opens the test's store (again, for reopen tests: same folder or prefix); every
    store opened is closed at teardown."""
    opened: list[Store] = []
    prefix = f"t{uuid.uuid4().hex[:12]}"

    def opener(embedder: str = EMBEDDER, dimension: int = DIM, **kwargs: Any) -> Store:
        store: Store
        if backend == "edge":
            from cortex_tui.store.edge import EdgeStore

            store = EdgeStore.open(tmp_path / "store", embedder, dimension, **kwargs)
        else:
            from cortex_tui.store.qdrant_server import QdrantServerStore

            location = ":memory:" if backend == "memory" else os.environ["CORTEX_QDRANT_URL"]
            api_key = os.environ.get("CORTEX_QDRANT_API_KEY")
            store = QdrantServerStore.open(location, api_key, prefix, embedder, dimension, **kwargs)
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()
    if backend == "server":
        _drop_collections(prefix)


def _drop_collections(prefix: str) -> None:
    from qdrant_client import QdrantClient

    client = QdrantClient(
        url=os.environ["CORTEX_QDRANT_URL"], api_key=os.environ.get("CORTEX_QDRANT_API_KEY")
    )
    for collection in client.get_collections().collections:
        if collection.name.startswith(f"{prefix}_"):
            client.delete_collection(collection.name)
    client.close()


@pytest.fixture
def store(open_store: StoreOpener) -> Store:
    return open_store()
