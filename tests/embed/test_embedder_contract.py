"""The `Embedder` contract, checked against every backend."""

from __future__ import annotations

import numpy as np
import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.embed.ollama import OllamaEmbedder

TEXTS = [
    "How do I deploy the service?",
    "",
    "Run `pytest -q` before every commit; the CI rejects red builds.",
    "Le déploiement échoue quand la base de données est verrouillée. 数据库",
    "short",
    "The store records which embedder built it, so vectors of different models never mix "
    "silently, and a mismatch is reported with the command that rebuilds the index.",
]


@pytest.fixture(params=["onnx", "hashing", "ollama"])
def embedder(request: pytest.FixtureRequest) -> Embedder:
    if request.param == "onnx":
        onnx: Embedder = request.getfixturevalue("onnx_embedder")
        return onnx
    if request.param == "hashing":
        return HashingEmbedder()
    fake = request.getfixturevalue("fake_ollama")
    return OllamaEmbedder(fake.url, batch_size=4)


def test_is_an_embedder(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name
    assert embedder.dimension > 0


def test_rows_are_finite_unit_float32_vectors(embedder: Embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dimension)
    assert vectors.dtype == np.float32
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_texts_give_an_empty_matrix(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, embedder.dimension)


def test_query_is_the_single_row(embedder: Embedder) -> None:
    query = embedder.embed_query(TEXTS[0])
    assert query.shape == (embedder.dimension,)
    assert query.dtype == np.float32
    np.testing.assert_allclose(query, embedder.embed([TEXTS[0]])[0], atol=1e-6)


def test_deterministic(embedder: Embedder) -> None:
    np.testing.assert_array_equal(embedder.embed(TEXTS), embedder.embed(TEXTS))


def test_batch_composition_does_not_change_vectors(embedder: Embedder) -> None:
    together = embedder.embed(TEXTS)
    alone = np.stack([embedder.embed_query(text) for text in TEXTS])
    reversed_order = embedder.embed(TEXTS[::-1])[::-1]
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_allclose(together, reversed_order, atol=1e-5)


def test_a_bare_string_is_refused(embedder: Embedder) -> None:
    """A str is a Sequence[str]: embedding it would silently embed each character."""
    with pytest.raises(TypeError, match="embed_query"):
        embedder.embed("one text")
