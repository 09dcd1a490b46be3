"""The lexical channel's tokenizer and BM25 encoding."""

from __future__ import annotations

import zlib

import pytest

from cortex_tui.store.lexical import (
    AVG_LEN,
    K1,
    B,
    encode_document,
    encode_query,
    stem,
    term_id,
    tokenize,
)


def test_code_tokens_are_kept_whole_and_split() -> None:
    assert tokenize("The events.raw table") == ["events.raw", "event", "raw", "tabl"]
    assert tokenize("see src/app.py") == ["see", "src/app.py", "src", "app", "py"]
    assert tokenize("snake_case ci-cd") == ["snake_case", "snake", "case", "ci-cd", "ci", "cd"]


def test_camel_case_and_acronyms_split() -> None:
    assert tokenize("getUserName") == ["getusername", "get", "user", "name"]
    assert tokenize("HTTPServer") == ["httpserver", "http", "server"]


def test_stopwords_single_letters_dropped_digits_kept() -> None:
    assert tokenize("it's the python 3 of it") == ["python", "3"]
    assert tokenize("the and of") == []


def test_unicode_words() -> None:
    assert tokenize("Café NAÏVE 東京 (über)") == ["café", "naïv", "東京", "über"]


def test_chinese_japanese_and_korean_are_read_as_character_pairs() -> None:
    """A sentence without spaces shares with another the words they share (read whole,
    it shared nothing but an identical sentence); a lone character is dropped, as a lone
    letter is."""
    memory = set(tokenize("移动端导航菜单通过 hidden 字段隐藏"))
    prompt = set(tokenize("Blog 这个导航项想只在手机端的菜单里出现"))
    assert {"导航", "菜单"} <= memory & prompt
    assert "hidden" in memory and "blog" in prompt
    assert tokenize("関数を書く") == ["関数", "数を", "を書", "書く"]
    assert tokenize("관리자페이지") == ["관리", "리자", "자페", "페이", "이지"]
    assert tokenize("本 a") == []


@pytest.mark.parametrize(
    ("words", "root"),
    [
        (["deploy", "deploys", "deployed", "deploying"], "deploy"),
        (["stop", "stops", "stopped", "stopping"], "stop"),
        (["index", "indexes", "indexed"], "index"),
        (["query", "queries"], "queri"),
        (["cache", "caches", "cached", "caching"], "cach"),
        (["adopt", "adopts", "adopted", "adoption"], "adopt"),
    ],
)
def test_stemming_merges_inflections(words: list[str], root: str) -> None:
    assert {stem(w) for w in words} == {root}


def test_stemming_leaves_short_words_and_identifiers() -> None:
    assert [stem(w) for w in ("bus", "class", "status", "v1.2", "sha256", "ids")] == [
        "bus",
        "class",
        "status",
        "v1.2",
        "sha256",
        "id",
    ]


def test_term_ids_are_stable_31_bit_crc32() -> None:
    assert term_id("postgres") == zlib.crc32(b"postgres") & 0x7FFFFFFF
    assert term_id("東京") < 2**31


def test_document_weights_are_bm25_term_frequencies() -> None:
    indices, values = encode_document("redis redis cache", words=["Redis"])
    weights = dict(zip(indices, values, strict=True))
    length = 4  # redis ×3 (content and tag), cach
    norm = K1 * (1 - B + B * length / AVG_LEN)
    assert weights[term_id("redi")] == pytest.approx(3 * (K1 + 1) / (3 + norm))
    assert weights[term_id("cach")] == pytest.approx(1 * (K1 + 1) / (1 + norm))
    assert indices == sorted(indices)
    assert encode_document("the of") == ([], [])


def test_query_terms_weigh_one_each() -> None:
    indices, values = encode_query("Redis redis caching")
    assert sorted(indices) == sorted({term_id("redi"), term_id("cach")})
    assert values == [1.0, 1.0]
