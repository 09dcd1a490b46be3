"""The context block: labelled, budgeted, oversized memories skipped not stopping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cortex_tui.format import CLOSE_TAG, OPEN_TAG, PREAMBLE, estimate_tokens, format_context
from cortex_tui.models import (
    Memory,
    RecallResult,
    ScoreBreakdown,
)

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def result(content: str, rank: int = 1, conflicts: list[str] | None = None) -> RecallResult:
    t = NOW - timedelta(days=3)
    memory = Memory(content=content, created_at=t, updated_at=t, valid_from=t, project="atlas")
    b = ScoreBreakdown(signals={}, adjusted=0.5, final=0.5, cosine=0.5)
    return RecallResult(
        memory=memory, rank=rank, score=0.5, breakdown=b, conflicts_with=conflicts or []
    )


def test_block_is_labelled_with_type_age_id_and_conflicts() -> None:
    r = result("Deploys go through the blue-green switch.", conflicts=["abcd1234"])
    block = format_context([r], NOW, 2000)
    lines = block.splitlines()
    assert lines[0] == OPEN_TAG and lines[1] == PREAMBLE and lines[-1] == CLOSE_TAG
    assert "untrusted" in PREAMBLE
    assert f"[fact · 3d · {r.memory.short_id} · atlas]" in lines[2]
    assert lines[2].endswith("[conflicts with: abcd1234]")


def test_oversized_memory_is_skipped_and_smaller_ones_still_fit() -> None:
    big = result("word " * 900, rank=1)
    small = result("Small fact that fits.", rank=2)
    block = format_context([big, small], NOW, 200)
    assert "Small fact that fits." in block
    assert "word word" not in block
    assert estimate_tokens(block) <= 200


def test_char_cap_is_respected() -> None:
    results = [result(f"memory number {i} " + "x" * 80, rank=i + 1) for i in range(50)]
    block = format_context(results, NOW, 100_000, max_chars=1000)
    assert 0 < len(block) <= 1000


def test_nothing_fits_gives_empty_block() -> None:
    assert format_context([result("a " * 500)], NOW, 60) == ""


def test_token_estimate_counts_words_and_characters() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a b c d e f g h") == 11  # short words: word count wins
    assert estimate_tokens("x" * 400) == 100  # one long identifier: characters win
