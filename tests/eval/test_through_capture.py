"""The pieces of `eval --through-capture` a small haystack cannot tell apart: how a
conversation is cut into the exchanges capture reads, and how memories and archived
messages make one ranking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cortex_tui.eval.dataset import DatasetMemory
from cortex_tui.eval.through_capture import exchanges, ranked_with_quotes
from cortex_tui.models import GateEvidence, Memory, Quote, RecallResult, ScoreBreakdown

DAY = datetime(2023, 5, 22, 10, 0, tzinfo=UTC)


def _turn(label: str, speaker: str, session: str, at: datetime = DAY) -> DatasetMemory:
    return DatasetMemory(
        label=label,
        content=f"{speaker} said {label}",
        speaker=speaker,
        session_id=session,
        created_at=at,
    )


def _gate(relevance: float) -> GateEvidence:
    return GateEvidence(
        relevance=relevance,
        cosine=0.5,
        calibrated_cosine=0.5,
        lexical=0.0,
        entity=False,
        parts={},
    )


def _memory(relevance: float) -> RecallResult:
    memory = Memory(
        content=f"memory at {relevance}", created_at=DAY, updated_at=DAY, valid_from=DAY
    )
    breakdown = ScoreBreakdown(
        signals={}, adjusted=0.5, final=0.5, cosine=0.5, gate=_gate(relevance)
    )
    return RecallResult(memory=memory, rank=1, score=0.5, breakdown=breakdown)


def _quote(relevance: float) -> Quote:
    return Quote(
        id=f"quote-{relevance}",
        text="said",
        speaker="user",
        said_at=DAY,
        rank=1,
        gate=_gate(relevance),
    )


def test_an_exchange_is_a_persons_turn_with_the_replies_after_it() -> None:
    turns = [
        _turn("S1:1", "assistant", "a"),  # a reply before any prompt: an exchange alone
        _turn("S1:2", "user", "a"),
        _turn("S1:3", "assistant", "a"),
        _turn("S1:4", "assistant", "a"),
        _turn("S1:5", "user", "a"),
        _turn("S2:1", "assistant", "b", DAY + timedelta(days=1)),
    ]
    played = exchanges(turns)
    assert [[t.label for t in e.turns] for e in played] == [
        ["S1:1"],
        ["S1:2", "S1:3", "S1:4"],
        ["S1:5"],
        ["S2:1"],
    ]
    # A session's exchanges share its date, a second apart so they keep their order.
    assert [e.said_at - DAY for e in played] == [
        timedelta(0),
        timedelta(seconds=1),
        timedelta(seconds=2),
        timedelta(days=1),
    ]
    assert (
        played[1].text() == "User: user said S1:2\n\nAssistant: assistant said S1:3\n\n"
        "Assistant: assistant said S1:4"
    )


def test_memories_and_quotes_meet_on_the_gates_relevance_each_in_its_own_order() -> None:
    memories = [_memory(0.9), _memory(0.4), _memory(0.7)]  # ranked by score, not relevance
    quotes = [_quote(0.8), _quote(0.5)]
    ranked = ranked_with_quotes(memories, quotes)
    ids = {m.memory.id: f"m{m.breakdown.gate.relevance}" for m in memories if m.breakdown.gate}
    assert [ids.get(i, i) for i in ranked] == ["m0.9", "quote-0.8", "quote-0.5", "m0.4", "m0.7"]
