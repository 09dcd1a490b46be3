"""The `configure` fixture: settings for a home on either backend, the embedded store or
a Qdrant server (a real one when CORTEX_QDRANT_URL names it, else qdrant-client's
in-process engine, one instance shared by every open: a `:memory:` client is otherwise
new and empty each time)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from cortex_tui.config import Settings, load_settings
from tests.store.helpers import SERVER_API_KEY, SERVER_URL


class SharedClient(QdrantClient):
    """The in-process engine, kept alive across the stores that open and close it."""

    def close(self, **kwargs: Any) -> None:
        pass


@pytest.fixture(params=["embedded", "server"])
def configure(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Settings for the home at a dimension of the hashing embedder, on the backend."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    client: QdrantClient | None = None
    if request.param == "server" and not SERVER_URL:
        client = SharedClient(location=":memory:")
        monkeypatch.setattr("cortex_tui.store.qdrant_server.QdrantClient", lambda **_: client)

    def settings_for(home: Path, dimension: int) -> Settings:
        settings = load_settings(home)
        settings.embedder.kind = "hashing"
        settings.embedder.hashing_dimension = dimension
        if request.param == "server":
            settings.store.qdrant_url = SERVER_URL or ":memory:"
            settings.store.qdrant_api_key = SERVER_API_KEY
            settings.store.collection_prefix = prefix
        return settings

    admin = None
    if request.param == "server":
        admin = client or QdrantClient(url=SERVER_URL, api_key=SERVER_API_KEY)
    settings_for.backend = request.param  # type: ignore[attr-defined]
    settings_for.admin = admin  # type: ignore[attr-defined]
    settings_for.prefix = prefix  # type: ignore[attr-defined]
    yield settings_for
    if admin is not None:
        for collection in admin.get_collections().collections:
            if collection.name.startswith(prefix):
                admin.delete_collection(collection.name)
