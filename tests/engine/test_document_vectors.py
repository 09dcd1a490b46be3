"""Memories are stored with document vectors and recalled with query vectors: a model
with prompts (e5's "query: " / "passage: ") must never store a memory under its query
prompt, and the service's query cache must never stand in for a document's vector."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cortex_tui.embed.base import Matrix
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.models import MemoryDraft
from tests.conftest import make_engine


class PromptedEmbedder(HashingEmbedder):
    """Queries carry a prompt of their own, as an e5 or bge model's do."""

    def embed_query(self, text: str) -> Matrix:
        return self.embed([f"query: {text}"])[0]


def test_remember_stores_the_document_vector(tmp_path: Path) -> None:
    embedder = PromptedEmbedder()
    engine = make_engine(tmp_path / "home", embedder)
    try:
        content = "The staging database runs PostgreSQL 16 on port 5433."
        memory = engine.remember(MemoryDraft(content=content)).memory
        stored = engine.store.get_vectors([memory.id])[memory.id]
        np.testing.assert_allclose(stored, embedder.embed([content])[0], atol=1e-6)
        assert not np.allclose(stored, embedder.embed_query(content), atol=1e-3)
    finally:
        engine.close()
