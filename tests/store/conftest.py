"""Fixtures for the store contract suite: one store per backend.

Backends: `edge` (a fresh folder), `memory` (qdrant-client `:memory:`) and `server` (a
real Qdrant at `CORTEX_QDRANT_URL`, each test in its own collection prefix; skipped when
the variable is unset).
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.store.base import Store

from .helpers import DIM, EMBEDDER, SERVER_API_KEY, SERVER_URL

# The server backend joins only when configured; test_store_server_configured reports
# the skip once instead of once per contract test.
BACKENDS = ("edge", "memory", *(("server",) if SERVER_URL else ()))

StoreOpener = Callable[..., Store]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture(scope="session")
def edge_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty Edge store to clone: creating one (four shards, 19 payload indexes) costs
    ~0.5 s, a sparse copy ~0.1 s. Creation itself is tested in test_store_edge."""
    from cortex_tui.store.edge import EdgeStore

    path = tmp_path_factory.mktemp("template") / "store"
    EdgeStore.open(path, EMBEDDER, DIM).close()
    return path


@pytest.fixture
def open_store(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[StoreOpener]:
    """Opens the test's store (again, for reopen tests: same folder or prefix); every
    store opened is closed at teardown."""
    opened: list[Store] = []
    prefix = f"t{uuid.uuid4().hex[:12]}"

    def opener(embedder: str = EMBEDDER, dimension: int = DIM, **kwargs: Any) -> Store:
        store: Store
        if backend == "edge":
            from cortex_tui.store.edge import EdgeStore

            folder = tmp_path / "store"
            if not folder.exists():
                _clone(request.getfixturevalue("edge_template"), folder)
            store = EdgeStore.open(folder, embedder, dimension, **kwargs)
        else:
            from cortex_tui.store.qdrant_server import QdrantServerStore

            location = SERVER_URL if backend == "server" else ":memory:"
            assert location is not None
            store = QdrantServerStore.open(
                location, SERVER_API_KEY, prefix, embedder, dimension, **kwargs
            )
        opened.append(store)
        return store

    yield opener
    for store in opened:
        store.close()
    if backend == "server":
        _drop_collections(prefix)


def _clone(template: Path, folder: Path) -> None:
    """Copy keeping holes: Edge preallocates ~650 MB of sparse files (WAL, mmap pages)
    that hold under 1 MB of data, and `shutil.copytree` would write them all out. Without
    GNU cp the test creates its store from scratch instead."""
    try:
        subprocess.run(
            ["cp", "-a", "--sparse=always", str(template), str(folder)],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(folder, ignore_errors=True)


def _drop_collections(prefix: str) -> None:
    from qdrant_client import QdrantClient

    client = QdrantClient(url=SERVER_URL, api_key=SERVER_API_KEY)
    for collection in client.get_collections().collections:
        if collection.name.startswith(f"{prefix}_"):
            client.delete_collection(collection.name)
    client.close()


@pytest.fixture
def store(open_store: StoreOpener) -> Store:
    return open_store()
