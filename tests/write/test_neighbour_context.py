"""Neighbour context through the Engine API: a turn of a conversation is found by the
turn before it, memories written alone lose nothing, and the context stays index-side."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import Memory, MemoryDraft
from cortex_tui.recall.request import RecallRequest
from tests.conftest import NOW, make_engine

CONVERSATION = [
    ("Caroline", "Did you ever adopt a dog from the shelter?"),
    ("Melanie", "Yes! The little grey one, she has been with us since last May."),
    ("Caroline", "That is wonderful news, I am so happy for you."),
    ("Melanie", "Thanks! Work has been busy, we ship the new release on Friday."),
]
ELSEWHERE = [
    "Ines: Yes, the little grey one has been with us since last May.",
    "The grey paint for the fence arrived on Tuesday.",
    "Last May the team moved to the new office.",
]
QUESTION = "Since when does Melanie have the dog she adopted?"


def _turns(engine: LocalEngine, session: str = "chat-1") -> list[Memory]:
    return [
        engine.materialise(
            MemoryDraft(
                content=f"{speaker}: {text}",
                session_id=session,
                turn=position,
                speaker=speaker,
                created_at=NOW,
            )
        )
        for position, (speaker, text) in enumerate(CONVERSATION)
    ]


def _conversation_engine(home: Path, embedder: Embedder) -> tuple[LocalEngine, list[Memory]]:
    engine = make_engine(home, embedder)
    turns = _turns(engine)
    alone = [engine.materialise(MemoryDraft(content=text, created_at=NOW)) for text in ELSEWHERE]
    engine.insert([*turns, *alone])
    return engine, turns


def _recall(engine: LocalEngine, query: str) -> list[tuple[str, bool, float | None]]:
    response = engine.recall(RecallRequest(query=query, update_access=False))
    return [
        (r.memory.id, r.breakdown.matched_context, r.breakdown.context_cosine)
        for r in response.results
    ]


def test_an_answer_is_found_by_the_question_before_it(
    tmp_path: Path, onnx_embedder: Embedder
) -> None:
    engine, turns = _conversation_engine(tmp_path / "home", onnx_embedder)
    try:
        results = _recall(engine, QUESTION)
        answer = turns[1].id
        assert results[0][:2] == (answer, True)
        result = engine.recall(RecallRequest(query=QUESTION, update_access=False)).results[0]
        note = result.breakdown.dense_note()
        assert note is not None and note.startswith("matched with context of the previous turn")
        # The first turn has no turn before it: it is read alone.
        first = next(r for r in results if r[0] == turns[0].id)
        assert first[1:] == (False, None)
    finally:
        engine.close()


def test_without_context_the_answer_is_not_first(
    tmp_path: Path, onnx_embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_CONTEXT__ENABLED", "false")
    engine, turns = _conversation_engine(tmp_path / "home", onnx_embedder)
    try:
        results = _recall(engine, QUESTION)
        assert results[0][0] != turns[1].id
        assert all(context is None for _, _, context in results)
    finally:
        engine.close()


def test_memories_written_alone_have_no_context(onnx_engine: LocalEngine) -> None:
    onnx_engine.remember(MemoryDraft(content="The staging cluster resets on Sundays"))
    [result] = onnx_engine.recall(RecallRequest(query="when is staging reset")).results
    assert result.breakdown.context_cosine is None and not result.breakdown.matched_context
    assert result.breakdown.dense_note() is None


def test_context_is_index_side_only(tmp_path: Path, onnx_embedder: Embedder) -> None:
    engine, turns = _conversation_engine(tmp_path / "home", onnx_embedder)
    try:
        answer = engine.get(turns[1].id)
        assert (
            answer.content
            == "Melanie: Yes! The little grey one, she has been with us since last May."
        )
        assert (answer.turn, answer.speaker, answer.session_id) == (1, "Melanie", "chat-1")
        exported = [json.loads(line) for line in engine.export()]
        mine = next(
            line["data"] for line in exported if line.get("data", {}).get("id") == answer.id
        )
        assert "_context" not in json.dumps(exported)
        assert mine["turn"] == 1 and mine["speaker"] == "Melanie"
    finally:
        engine.close()


def test_context_is_the_same_whether_written_together_or_apart(
    tmp_path: Path, onnx_embedder: Embedder
) -> None:
    together = make_engine(tmp_path / "together", onnx_embedder)
    apart = make_engine(tmp_path / "apart", onnx_embedder)
    try:
        turns = _turns(together)
        together.insert(turns)
        apart.insert(turns[2:])  # later turns first: their predecessor arrives after them
        apart.insert(turns[:2])
        apart.insert(turns[2:])  # written again, now with the turn before in the store
        ids = [m.id for m in turns]
        one = together.store.get_vectors(ids, context=True)
        other = apart.store.get_vectors(ids, context=True)
        assert set(one) == set(other) == set(ids[1:])
        for memory_id in ids[1:]:
            assert np.allclose(one[memory_id], other[memory_id], atol=1e-6)
    finally:
        together.close()
        apart.close()


def test_captured_turns_are_numbered_in_their_session(onnx_engine: LocalEngine) -> None:
    first = onnx_engine.capture(
        "We decided to deploy atlas with Fly.io from now on.", session_id="s-1"
    )
    second = onnx_engine.capture("Priya Raman leads the atlas team since March.", session_id="s-1")
    elsewhere = onnx_engine.capture("The harbor service runs on Kubernetes.")
    [a], [b], [c] = (
        [o.result.memory for o in report.outcomes if o.result is not None]
        for report in (first, second, elsewhere)
    )
    assert (a.turn, b.turn, c.turn) == (0, 1, None)
    contexts = onnx_engine.store.get_vectors([a.id, b.id, c.id], context=True)
    assert set(contexts) == {b.id}


def test_an_update_keeps_its_turn_and_context(tmp_path: Path, onnx_embedder: Embedder) -> None:
    engine, turns = _conversation_engine(tmp_path / "home", onnx_embedder)
    try:
        new = engine.update(turns[1].id, content="Melanie: Yes! The grey one, since last May.")
        assert (new.turn, new.session_id) == (1, "chat-1")
        assert set(engine.store.get_vectors([new.id], context=True)) == {new.id}
        # Both versions belong to turn 1; written again, turn 2 is read with the current one.
        after = engine.store.session_turn("chat-1", before=2)
        assert {m.id for m in after} == {turns[1].id, new.id}
        engine.insert([turns[2]])
        vectors = engine.store.get_vectors([turns[2].id, new.id])
        expected = np.asarray(vectors[turns[2].id]) + np.asarray(vectors[new.id])
        expected /= np.linalg.norm(expected)
        [context] = engine.store.get_vectors([turns[2].id], context=True).values()
        assert np.allclose(context, expected, atol=1e-5)
    finally:
        engine.close()


@pytest.mark.parametrize("searched", ["0", "50"])
def test_why_not_ranks_as_recall_does(
    tmp_path: Path, hashing_embedder: Embedder, monkeypatch: pytest.MonkeyPatch, searched: str
) -> None:
    """Why not? widens the pool to 500 own-vector hits; the dense channel's scale must not
    move with it. Here the answer matches best by its context (its turn and the one
    before hold one query word each) while 70 notes beat it on its own cosine, so the
    wider pool holds a context cosine above anything recall's own-vector top list reads:
    read from that pool, the scale would change every result's score."""
    monkeypatch.setenv("CORTEX_RECALL__CONTEXT_CANDIDATES", searched)
    engine = make_engine(tmp_path / "home", hashing_embedder)
    try:
        notes = [
            engine.materialise(
                MemoryDraft(content=f"alpha bravo filler{i} pad{i} word{i}", created_at=NOW)
            )
            for i in range(70)
        ]
        question, answer = (
            engine.materialise(
                MemoryDraft(content=text, session_id="chat", turn=turn, created_at=NOW)
            )
            for turn, text in enumerate(["delta zulu", "charlie yankee"])
        )
        engine.insert([*notes, question, answer])
        request = RecallRequest(query="alpha bravo charlie delta", limit=10, update_access=False)
        results = engine.recall(request).results
        assert results[0].memory.id == answer.id and results[0].breakdown.matched_context
        for result in results:
            explained = engine.explain(request, result.memory.id)
            assert explained.rank == result.rank
            assert explained.result is not None
            assert explained.result.score == pytest.approx(result.score)
            assert explained.result.breakdown.context_cosine == pytest.approx(
                result.breakdown.context_cosine
            )
    finally:
        engine.close()
