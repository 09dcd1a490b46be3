"""Feature-hashing embedder: lexical vectors with no model, for tests and model-less installs.

Words, word pairs and character 3–5-grams are hashed with crc32 (stable across processes
and platforms, unlike `hash()`) into signed buckets. Character n-grams make "deploy" and
"deployment" overlap; signs make bucket collisions cancel out on average instead of
piling up. The vectors share no space with a neural model's: a store records which
embedder built it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

import numpy as np

from cortex_tui.embed.base import Matrix

_WORD = re.compile(r"\w+")
_NGRAM_SIZES = (3, 4, 5)
# A word yields about a dozen character n-grams; without down-weighting them, a shared
# word would count for little next to many shared fragments.
_NGRAM_WEIGHT = 0.3
# Texts with no word at all still get a unit vector: the store's cosine metric needs one.
_EMPTY_FEATURE = "e:"
# Long tokens (hashes, blobs) would yield hundreds of n-grams that match nothing else.
_MAX_NGRAM_WORD = 40
_LOW_BITS = 0x7FFFFFFF
# Rows hashed per numpy pass: bounds the dense (rows × dimension) scratch matrix.
_CHUNK_ROWS = 1024


class HashingEmbedder:
    """Deterministic lexical vectors: equal texts always get equal vectors, in any process."""

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be at least 1, got {dimension}")
        self._dimension = dimension

    @property
    def name(self) -> str:
        """Bump `v1` whenever features or weights change: stored vectors would stop matching."""
        return f"hashing:v1:{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; use embed_query() for one")
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        for start in range(0, len(texts), _CHUNK_ROWS):
            out[start : start + _CHUNK_ROWS] = self._embed_chunk(texts[start : start + _CHUNK_ROWS])
        return out

    def embed_query(self, text: str) -> Matrix:
        return self.embed([text]).reshape(self.dimension)

    def _embed_chunk(self, texts: Sequence[str]) -> Matrix:
        """Collect every (row, bucket, signed weight) of the chunk, then sum them in one pass."""
        buckets: list[int] = []
        weights: list[float] = []
        counts: list[int] = []
        for text in texts:
            before = len(buckets)
            words = _WORD.findall(text.lower())
            for word in words:
                word_buckets, word_weights = _word_features(word, self._dimension)
                buckets.extend(word_buckets)
                weights.extend(word_weights)
            features = [f"b:{a} {b}" for a, b in pairwise(words)]
            if not words:
                features.append(_EMPTY_FEATURE)
            for feature in features:
                bucket, sign = _hash(feature, self._dimension)
                buckets.append(bucket)
                weights.append(sign)
            counts.append(len(buckets) - before)
        rows = np.repeat(np.arange(len(texts)), counts)
        flat = rows * self._dimension + np.asarray(buckets, dtype=np.int64)
        sums = np.bincount(flat, weights=weights, minlength=len(texts) * self._dimension)
        matrix = sums.reshape(len(texts), self._dimension)
        # Sublinear: a word repeated ten times should not outweigh ten different words.
        matrix = np.sign(matrix) * np.log1p(np.abs(matrix))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalised: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised


# About 1 KB per cached word: 16k words hold a project's working vocabulary in ~17 MB.
@lru_cache(maxsize=16384)
def _word_features(word: str, dimension: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """A word's unigram and character n-gram buckets; cached because words recur a lot."""
    unigram_bucket, unigram_sign = _hash(f"w:{word}", dimension)
    marked = f"<{word[:_MAX_NGRAM_WORD]}>"
    digests = [
        zlib.crc32(f"c:{marked[start : start + size]}".encode())
        for size in _NGRAM_SIZES
        for start in range(len(marked) - size + 1)
    ]
    buckets = (unigram_bucket, *((digest & _LOW_BITS) % dimension for digest in digests))
    weights = (
        unigram_sign,
        *(-_NGRAM_WEIGHT if digest >> 31 else _NGRAM_WEIGHT for digest in digests),
    )
    return buckets, weights


def _hash(feature: str, dimension: int) -> tuple[int, float]:
    """Bucket from the low 31 bits, sign from the top bit, so the two are independent."""
    digest = zlib.crc32(feature.encode())
    return (digest & _LOW_BITS) % dimension, -1.0 if digest >> 31 else 1.0
