"""The feature-hashing embedder: lexical sanity and stability across processes."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_tui.embed.hashing import HashingEmbedder


def test_identity_follows_the_dimension() -> None:
    embedder = HashingEmbedder(64)
    assert embedder.name == "hashing:v1:64"
    assert embedder.dimension == 64
    assert embedder.embed(["deploy"]).shape == (1, 64)


def test_rejects_a_dimension_below_one() -> None:
    with pytest.raises(ValueError, match="dimension"):
        HashingEmbedder(0)


def test_shared_words_and_word_stems_bring_texts_closer() -> None:
    query, related, unrelated = HashingEmbedder().embed(
        ["How do I deploy the service?", "Deployment steps for the service", "I like bananas"]
    )
    assert query @ related > query @ unrelated + 0.2


def test_texts_without_words_still_get_a_unit_vector() -> None:
    vectors = HashingEmbedder().embed(["", "!!! ---", "   "])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_case_does_not_matter() -> None:
    embedder = HashingEmbedder()
    np.testing.assert_array_equal(
        embedder.embed_query("Deploy The Service"), embedder.embed_query("deploy the service")
    )


def test_many_texts_match_one_by_one() -> None:
    """Crosses the internal chunk boundary."""
    embedder = HashingEmbedder()
    texts = [f"memory {i} about topic {i % 13}" for i in range(2100)]
    vectors = embedder.embed(texts)
    for i in (0, 1023, 1024, 2099):
        np.testing.assert_array_equal(vectors[i], embedder.embed_query(texts[i]))


def test_same_vector_in_another_process() -> None:
    """crc32, not hash(): a store built yesterday must match queries made today."""
    text = "Rebuild the index after changing the embedder"
    script = (
        "from cortex_tui.embed.hashing import HashingEmbedder\n"
        f"print(HashingEmbedder().embed_query({text!r}).tobytes().hex())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True
    )
    assert result.stdout.strip() == HashingEmbedder().embed_query(text).tobytes().hex()


@given(st.lists(st.text(max_size=200), max_size=5))
def test_any_texts_give_finite_unit_vectors(texts: list[str]) -> None:
    vectors = HashingEmbedder(32).embed(texts)
    assert vectors.shape == (len(texts), 32)
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
