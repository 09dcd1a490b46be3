"""Judging what a turn was given, through both engines: a useful mark takes a memory off
the "given for nothing" list, a wrong one lowers it (a new version), and taking that
back restores it."""

from __future__ import annotations

import pytest

from cortex_tui.engine.protocol import Engine
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.given.judgements import lowered_confidence
from cortex_tui.given.record import Asker, Given, build_record
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from tests.server.test_engine_contract import any_engine  # noqa: F401 (a fixture)

FACTS = [
    "Atlas deploys run through the helm chart in infra/atlas",
    "Atlas deploys need a green staging run first",
    "The atlas staging cluster is in eu-west-1",
]


def _record_turns(engine: Engine, count: int) -> None:
    for number in range(count):
        query = f"how do atlas deploys work? ({number})"
        response = engine.recall(RecallRequest(query=query, update_access=False))
        asker = Asker(agent="claude", trigger="prompt", session="s-1", query=query)
        given = Given(response.context, recalled=response.results)
        engine.given.record(build_record(asker, engine.now(), given, 2000))


def test_turns_are_judged_lowered_taken_back_and_counted(any_engine: Engine) -> None:  # noqa: F811
    for fact in FACTS:
        any_engine.remember(MemoryDraft(content=fact))
    _record_turns(any_engine, 3)
    turns = any_engine.given.records(session="s-")
    assert len(turns) == 3 and all(turn.judged == {} for turn in turns)
    first = turns[0]
    useful, wrong = first.given[0], first.given[1]
    often = {item.id: item.given for item in any_engine.given.unhelpful_memories(min_given=3)}
    assert often == {memory.id: 3 for memory in first.given}

    mark = any_engine.given.judge_turn(first.id[:8], useful.id[:8], "useful")
    assert (mark.memory_id, mark.verdict, mark.lowered) == (useful.id, "useful", None)
    assert any_engine.given.records(limit=1)[0].judged == {useful.id: "useful"}
    assert useful.id not in {item.id for item in any_engine.given.unhelpful_memories(min_given=3)}

    before = any_engine.get(wrong.id)
    judged = any_engine.given.judge_turn(first.id, wrong.id, "wrong")
    assert judged.lowered is not None and judged.lowered.supersedes_id == wrong.id
    assert judged.lowered.confidence == lowered_confidence(before.confidence)
    assert not any_engine.get(wrong.id).is_current
    assert any_engine.given.records(limit=1)[0].judged == {useful.id: "useful", wrong.id: "wrong"}
    counted = {item.id: item.wrong for item in any_engine.given.unhelpful_memories(min_given=3)}
    assert counted[wrong.id] == 1

    any_engine.given.withdraw_judgement(judged.id)
    restored = any_engine.get(wrong.id)
    assert restored.is_current and restored.confidence == before.confidence
    assert any_engine.given.records(limit=1)[0].judged == {useful.id: "useful"}

    with pytest.raises(NotFoundError):
        any_engine.given.judge_turn("ffffffff", useful.id, "useful")
    with pytest.raises(InvalidInputError):
        any_engine.given.judge_turn(first.id, "ffffffff", "useful")
    with pytest.raises(NotFoundError):
        any_engine.given.withdraw_judgement(judged.id)
