"""The service's query cache: a repeat costs no model run and returns the same vector."""

from __future__ import annotations

import numpy as np

from cortex_tui.embed.base import Matrix
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.embed.query_cache import QueryCache


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(64)
        self.queries: list[str] = []

    def embed_query(self, text: str) -> Matrix:
        self.queries.append(text)
        return super().embed_query(text)


def test_a_repeated_query_is_embedded_once_and_answers_the_same() -> None:
    inner = CountingEmbedder()
    cache = QueryCache(inner)
    first = cache.embed_query("how do we deploy?")
    first[0] = 42.0  # a caller scribbling on its copy changes nothing for the next
    second = cache.embed_query("how do we deploy?")
    assert inner.queries == ["how do we deploy?"]
    np.testing.assert_array_equal(second, inner.embed_query("how do we deploy?"))
    assert (cache.name, cache.dimension) == (inner.name, inner.dimension)


def test_the_least_recently_used_query_goes_first() -> None:
    inner = CountingEmbedder()
    cache = QueryCache(inner, capacity=2)
    for text in ["a", "b", "a", "c", "a", "b"]:
        cache.embed_query(text)
    # "b" was pushed out by "c" (the oldest then), "a" stayed in use throughout.
    assert inner.queries == ["a", "b", "c", "b"]


def test_documents_are_not_cached() -> None:
    inner = CountingEmbedder()
    cache = QueryCache(inner)
    np.testing.assert_array_equal(cache.embed(["x", "y"]), inner.embed(["x", "y"]))
    assert inner.queries == []
