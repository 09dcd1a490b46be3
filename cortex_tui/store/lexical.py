"""The lexical (BM25) channel, computed in Python so both backends index the same terms.

Qdrant's own BM25 needs a text index with scoring (Edge only) or server-side inference;
sparse vectors with the IDF modifier work identically in Edge, `:memory:` and a server.
A document is encoded as {term hash: BM25 term-frequency weight} and the store's IDF
modifier multiplies in the inverse document frequency at query time, so

    score(q, d) = Σ_{t ∈ q ∩ d} idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len)).

`avg_len` is fixed rather than tracked: memories are short statements of similar length,
and a fixed value keeps a document's vector independent of the rest of the store (no
re-indexing as the store grows; tracking real lengths ranked the same on LoCoMo).

Chosen against Qdrant Edge's own BM25 (its encoder and its scored text index) and
`bm25s` by `bench/lexical_backends.py`: this tokenizer ranks best, splits code
identifiers, writes in milliseconds with the filter inside the query, and can weight a
previous turn's words (docs/measurements.md, "The lexical channel").
"""

from __future__ import annotations

import re
import threading
import zlib
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from cortex_tui.models import Memory

K1 = 1.2
B = 0.75
AVG_LEN = 24.0
LEXICAL_VERSION = 3
"""Raised whenever a text's terms change (2: Snowball stems; 3: Chinese, Japanese and
Korean cut into character pairs); a store whose lexical vectors were encoded by an older
version re-encodes them when it opens."""

# Runs of word characters joined by code punctuation: `events.raw`, `snake_case`,
# `ci-cd`, `src/app.py`, `v1.2`, `std::vec`. Surrounding punctuation is not part of a run.
_COMPOUND = re.compile(r"\w+(?:[._\-/:@#+]+\w+)*")
# Unicode letters and digits, without the underscore `\w` includes.
_ALNUM = re.compile(r"[^\W_]+")
# camelCase and PascalCase boundaries in ASCII words: `getUserName` → get, User, Name;
# `HTTPServer` → HTTP, Server; `sha256` → sha, 256.
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Scripts written without spaces between words (Han, kana), and Hangul, whose words carry
# their particles: a run of them is read as overlapping character pairs.
_CJK = re.compile("([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+)")

# fmt: off
STOPWORDS: frozenset[str] = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
    "do", "does", "for", "from", "had", "has", "have", "he", "her", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or",
    "our", "she", "should", "so", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "too", "us", "was", "we", "were", "what",
    "when", "where", "which", "who", "why", "will", "with", "would", "you", "your"
})
# fmt: on


_STEMMERS = threading.local()


def stem(word: str) -> str:
    """English Snowball stem of an alphabetic word, so `adopts`, `adopted` and `adoption`
    meet; identifiers and numbers pass unchanged (their parts are stemmed one by one).

    PyStemmer (the Snowball stemmers in C) rather than hand-written suffix rules:
    measured on LoCoMo's development conversations it ranks as well as the light
    stemmer it replaced (docs/measurements.md, "The lexical channel"), merges what that one missed
    (`adoption`/`adopt`, `ids`/`id`), and costs about a microsecond a word. A stemmer
    object is not thread-safe, so each thread gets its own.
    """
    if not word.isalpha():
        return word
    english = getattr(_STEMMERS, "english", None)
    if english is None:
        english = _STEMMERS.english = Stemmer.Stemmer("english")
    stemmed: str = english.stemWord(word)
    return stemmed


def _parts(compound: str) -> list[str]:
    parts: list[str] = []
    for piece in _ALNUM.findall(compound):
        if piece.isascii():
            parts.extend(_CAMEL.findall(piece))
            continue
        for n, run in enumerate(_CJK.split(piece)):
            if n % 2:
                parts.extend(_pairs(run))
            elif run:
                parts.append(run)
    return parts


def _pairs(run: str) -> list[str]:
    """A run of Chinese, Japanese or Korean as its overlapping character pairs: a
    sentence with no spaces shares with another the words they share, where read whole
    it shared nothing but an identical sentence. A lone character says as little as a
    lone letter, and is dropped as one is."""
    return [run[i : i + 2] for i in range(len(run) - 1)]


@lru_cache(maxsize=65536)
def _terms(compound: str) -> tuple[str, ...]:
    """Terms of one compound token. Cached: a store's vocabulary is small and repeats,
    and this is most of the cost of indexing a memory."""
    parts = _parts(compound)
    whole = len(parts) > 1 and not _CJK.fullmatch(compound)
    terms = [compound.lower()] if whole else []
    for part in parts:
        word = part.lower()
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            terms.append(stem(word))
    return tuple(terms)


def tokenize(text: str) -> list[str]:
    """Lowercased, stemmed terms of `text`, stopwords dropped, repeats kept (for tf).

    A code-ish token yields itself whole (so an exact `events.raw` query scores highest)
    and its parts (so `raw` or `events` alone still find it). Single letters are noise
    (`it's` → `s`) and dropped; single digits are kept (`python 3`).
    """
    terms: list[str] = []
    for compound in _COMPOUND.findall(text):
        terms.extend(_terms(compound))
    return terms


def query_coverage(query_terms: frozenset[str], content: str, words: Iterable[str] = ()) -> float:
    """Share of the query's distinct terms that a memory's own indexed text (content,
    tags, speaker) contains, on the same terms the BM25 channel indexes.

    BM25 divided by the best hit says how a memory compares with the others, not how
    much of the question it speaks to: on a small store a lone match on one common
    word is "the best" and scales to 1.0. Coverage supplies that absolute part.
    """
    if not query_terms:
        return 0.0
    return len(query_terms & _document_terms(content, tuple(words))) / len(query_terms)


@lru_cache(maxsize=4096)
def _document_terms(content: str, words: tuple[str, ...]) -> frozenset[str]:
    """Cached: the same memories come back query after query in a running service, and
    a lookup costs a fraction of tokenizing (0.9 ms for 100 candidates uncached)."""
    terms = set(tokenize(content))
    for word in words:
        terms.update(tokenize(word))
    return frozenset(terms)


def term_id(term: str) -> int:
    """A stable 31-bit id for a term (crc32 is fixed across runs and platforms, unlike
    `hash`); collisions only add a little noise to rare terms."""
    return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF


SparseTerms = tuple[list[int], list[float]]


def _sparse(weights: dict[int, float]) -> SparseTerms:
    indices = sorted(weights)
    return indices, [weights[index] for index in indices]


def indexed_words(memory: Memory) -> tuple[str, ...]:
    """What the lexical channel indexes besides the content: tags and the speaker, so
    "what did Caroline say" matches the turns Caroline spoke."""
    return (*memory.tags, memory.speaker) if memory.speaker else tuple(memory.tags)


def encode_document(
    content: str,
    words: Iterable[str] = (),
    context: str | None = None,
    context_weight: float = 0.0,
) -> SparseTerms:
    """BM25 term weights of a memory's content plus its indexed words (tags, speaker),
    as (indices, values).

    `context` (the turn before it in its session) counts at `context_weight` per
    occurrence, in the term frequencies and in the document's length alike: a memory
    that answers "Yes, I adopted her last May" is found by the words of the question it
    answers, without those words outweighing its own.
    """
    counts: Counter[str] = Counter(tokenize(content))
    for word in words:
        counts.update(tokenize(word))
    length = float(sum(counts.values()))
    frequencies: dict[str, float] = {term: float(tf) for term, tf in counts.items()}
    if context and context_weight > 0:
        for term, count in Counter(tokenize(context)).items():
            frequencies[term] = frequencies.get(term, 0.0) + context_weight * count
            length += context_weight * count
    if not frequencies:
        return [], []
    norm = K1 * (1.0 - B + B * length / AVG_LEN)
    weights: dict[int, float] = {}
    for term, tf in frequencies.items():
        index = term_id(term)
        weights[index] = weights.get(index, 0.0) + tf * (K1 + 1.0) / (tf + norm)
    return _sparse(weights)


def encode_query(text: str) -> SparseTerms:
    """Each distinct query term weighs 1.0: repeating a word in a query adds nothing."""
    return _sparse({term_id(term): 1.0 for term in tokenize(text)})
