"""Part vectors through the Engine API: a fact said in passing inside a long memory is
found by a question about it alone, the breakdown names the sentence, and backups and
re-embeds carry the parts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import PartsConfig
from cortex_tui.embed.base import Embedder
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.maintenance.reembed import reembed
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.write.parts import part_texts
from tests.conftest import NOW, make_engine

ASIDE = "By the way, I have started learning to play the cello on Sunday mornings."
LONG = (
    "I am planning the quarterly offsite for the platform team in Lisbon. We need a "
    "venue for forty people with a projector and decent coffee. The budget is tight "
    f"this year, so hotels near the airport are fine. {ASIDE} Could you draft an agenda "
    "with two workshop blocks and a dinner on the second evening?"
)
OTHERS = [
    "The staging cluster resets every Sunday at midnight.",
    "Music playlists for the office are shared in the team channel.",
    "Mornings are reserved for deep work; meetings start after eleven.",
    "The offsite last year was in Porto and everyone liked the food.",
]
QUESTION = "Which instrument am I learning?"


@contextmanager
def _engine(home: Path, embedder: Embedder) -> Iterator[tuple[LocalEngine, str]]:
    """An engine holding the long memory (its id given) among one-sentence others."""
    engine = make_engine(home, embedder)
    try:
        long = engine.materialise(MemoryDraft(content=LONG, speaker="user", created_at=NOW))
        others = [engine.materialise(MemoryDraft(content=t, created_at=NOW)) for t in OTHERS]
        engine.insert([long, *others])
        yield engine, long.id
    finally:
        engine.close()


def test_a_fact_said_in_passing_is_found_by_its_sentence(
    tmp_path: Path, onnx_embedder: Embedder
) -> None:
    with _engine(tmp_path / "home", onnx_embedder) as (engine, long_id):
        [top, *_] = engine.recall(RecallRequest(query=QUESTION, update_access=False)).results
        assert top.memory.id == long_id
        breakdown = top.breakdown
        assert breakdown.matched_part and breakdown.part_cosine is not None
        assert breakdown.part_cosine > breakdown.cosine
        assert breakdown.matched_sentence == ASIDE
        note = breakdown.dense_note()
        assert note is not None and note.startswith("matched by one of its sentences")
        assert "cello" in note
        # The explanation of the same memory reads it the same way.
        explained = engine.explain(RecallRequest(query=QUESTION), long_id)
        assert explained.result is not None and explained.result.breakdown.matched_part
        # A memory of one sentence has no parts to match by.
        one = engine.recall(RecallRequest(query="when does staging reset", update_access=False))
        assert one.results[0].breakdown.part_cosine is None


def test_with_part_weight_zero_the_whole_text_is_read(
    tmp_path: Path, onnx_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_RECALL__PART_WEIGHT", "0")
    with _engine(tmp_path / "home", onnx_embedder) as (engine, long_id):
        results = engine.recall(RecallRequest(query=QUESTION, update_access=False)).results
        found = next(r for r in results if r.memory.id == long_id)
        assert not found.breakdown.matched_part and found.breakdown.part_cosine is None
        assert found.breakdown.matched_sentence is None
        # The parts are still stored: switching the weight back needs no re-embed.
        assert long_id in engine.store.get_parts([long_id])


def test_parts_switched_off_are_not_embedded(
    tmp_path: Path, hashing_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_PARTS__ENABLED", "false")
    with _engine(tmp_path / "home", hashing_embedder) as (engine, long_id):
        assert engine.store.get_parts([long_id]) == {}


def _split(content: str, max_parts: int = 48, min_chars: int = 0) -> list[str]:
    return part_texts(content, PartsConfig(max_parts=max_parts, min_chars=min_chars))


def test_part_texts_are_the_distinct_sentences_short_ones_joined() -> None:
    assert _split("One fact only, said in a single sentence.") == []
    assert _split("Same. Same. Other.") == ["Same.", "Other."]
    assert _split("A one. B two. C three.", max_parts=2) == ["A one.", "B two."]
    # A short sentence joins the next one; a short last one joins the one before.
    said = "Hey Mel! The grey one has been with us since May. We ship on Friday. Wow!"
    assert _split(said, min_chars=15) == [
        "Hey Mel! The grey one has been with us since May.",
        "We ship on Friday. Wow!",
    ]
    # Joined into one piece, the memory's own vector says it all: no parts.
    assert _split("Hey Mel! The grey one has been with us since May. Wow!", min_chars=15) == []
    assert len(_split(LONG, min_chars=40)) == 5
    assert part_texts(LONG, PartsConfig(enabled=False)) == []


def test_a_reembed_makes_the_parts_in_the_new_model(tmp_path: Path, configure: Any) -> None:
    home = tmp_path / "home"
    old, new = configure(home, 384), configure(home, 64)
    engine = open_engine(old, clock=frozen_clock(NOW))
    long = engine.materialise(MemoryDraft(content=LONG, created_at=NOW))
    engine.insert([long])
    engine.close()
    reembed(new, "hashing")
    engine = open_engine(new, clock=frozen_clock(NOW))
    try:
        parts = engine.store.get_parts([long.id])[long.id]
        expected = HashingEmbedder(64).embed(_split(LONG, min_chars=40))
        np.testing.assert_allclose(parts, expected, atol=1e-6)
    finally:
        engine.close()
    # A rebuild (the same model) splits again where the settings now split otherwise.
    new.parts.min_chars = 0
    reembed(new, "hashing")
    engine = open_engine(new, clock=frozen_clock(NOW))
    try:
        assert len(engine.store.get_parts([long.id])[long.id]) == len(_split(LONG)) == 5
        new.parts.max_parts = 3
        engine.close()
        reembed(new, "hashing")
        engine = open_engine(new, clock=frozen_clock(NOW))
        parts = engine.store.get_parts([long.id])[long.id]
        np.testing.assert_allclose(
            parts, HashingEmbedder(64).embed(_split(LONG, max_parts=3)), atol=1e-6
        )
    finally:
        engine.close()
