"""Spooled turns captured together (the service's drain): the same memories as one at a
time, each turn numbered within its session, slices that end when someone waits, and a
replay after a crash that stores nothing twice."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

import pytest

from cortex_tui.agent_turn.drain import batch_capture, capture_turn, drain_spool
from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.bench.load import exchange, fact_word
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.capture_batch import Unshared
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import Memory
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import MemoryFilter
from tests.conftest import make_engine

T = TypeVar("T")
log = logging.getLogger("test.capture_batch")


def turn_text(session: int, turn: int) -> str:
    question, answer = exchange(session, turn)
    return f"User: {question}\n\nAssistant: {answer}"


def spool_turns(spool: Spool, sessions: int, turns: int) -> None:
    """Turn by turn, the sessions interleaved, as parallel agents spool them."""
    spool.append_many(
        [
            turn_entry(turn_text(s, t), f"session-{s}", "atlas")
            for t in range(turns)
            for s in range(sessions)
        ]
    )


def everything(engine: LocalEngine) -> list[Memory]:
    return list(engine.store.iter_memories(MemoryFilter(current_only=False, statuses=None)))


def by_fact(memories: list[Memory]) -> dict[str, list[Memory]]:
    """Memories by the fact name they hold (sessions and turns below 10)."""
    names = {fact_word(s, t) for s in range(10) for t in range(10)}
    found: dict[str, list[Memory]] = {}
    for memory in memories:
        for word in memory.content.split():
            if word in names:
                found.setdefault(word, []).append(memory)
    return found


class CountingHold:
    """A hold that notes the turns each slice of writes took and the turns each batch
    prepared aside (holding nothing), and may say someone is waiting."""

    def __init__(self, contended: bool) -> None:
        self.slices: list[int] = []
        self.prepared_aside: list[int] = []
        self._contended = contended

    def __call__(self, work: Callable[[], T]) -> T:
        result = work()
        if isinstance(result, list):  # a slice of writes: its turns' outcomes
            self.slices.append(len(result))
        return result

    def contended(self) -> bool:
        return self._contended

    def writing(self) -> AbstractContextManager[object]:
        return nullcontext()

    def aside(self, work: Callable[[], T]) -> T:
        result = work()
        _failed, ready, _rows = result  # type: ignore[misc]
        self.prepared_aside.append(len(ready))
        return result


@pytest.fixture
def spool(tmp_path: Path) -> Spool:
    return Spool(tmp_path / "spool", log)


def test_a_batch_stores_what_one_at_a_time_stores_with_turns_in_order(
    tmp_path: Path, hashing_embedder: Embedder, spool: Spool
) -> None:
    spool_turns(spool, sessions=3, turns=4)
    batched = make_engine(tmp_path / "batched", hashing_embedder)
    try:
        captured = drain_spool(spool, lambda *_: "unused", log, batch_capture(batched, Unshared()))
        stored = everything(batched)
    finally:
        batched.close()
    assert captured == 12 and spool.pending() == []

    spool_turns(other := Spool(tmp_path / "other-spool", log), sessions=3, turns=4)
    single = make_engine(tmp_path / "single", hashing_embedder)
    try:
        drain_spool(other, lambda item, progress: capture_turn(single, item, progress), log)
        one_at_a_time = everything(single)
    finally:
        single.close()

    def summary(memories: list[Memory]) -> list[tuple[str, str | None, int | None, bool]]:
        return sorted((m.content, m.session_id, m.turn, m.is_current) for m in memories)

    assert summary(stored) == summary(one_at_a_time)
    facts = by_fact(stored)
    assert len(facts) == 12 and all(len(found) == 1 for found in facts.values())
    for session in range(3):
        turns = [facts[fact_word(session, t)][0].turn for t in range(4)]
        assert turns == [0, 1, 2, 3]


def test_a_slice_ends_as_soon_as_someone_waits(engine: LocalEngine, spool: Spool) -> None:
    spool_turns(spool, sessions=2, turns=3)
    waited = CountingHold(contended=True)
    assert drain_spool(spool, lambda *_: "unused", log, batch_capture(engine, waited)) == 6
    assert waited.slices == [1] * 6  # one turn per hold
    assert waited.prepared_aside == [6]  # extracted and embedded together, outside the holds

    later = Spool(spool.folder.with_name("later"), log)
    spool_turns(later, sessions=2, turns=3)
    later.append_many([turn_entry(turn_text(5, 0), "session-5", None)])
    free = CountingHold(contended=False)
    assert drain_spool(later, lambda *_: "unused", log, batch_capture(engine, free)) == 7
    assert sum(free.slices) == 7 and max(free.slices) > 1  # several turns per hold


def test_a_replay_after_a_crash_stores_nothing_twice(engine: LocalEngine, spool: Spool) -> None:
    """The crash came after the slice was durable but before its turns were marked done:
    the replay finds the turn's memories, keeps its number and writes nothing again."""
    spool_turns(spool, sessions=1, turns=2)
    first, second = spool.pending()
    drain_spool(
        Spool(spool.folder, log),
        lambda *_: "unused",
        log,
        _only(first["key"], batch_capture(engine, Unshared())),
    )
    progress = spool.progress(second["key"])
    prepared = engine.prepare_capture(
        second["text"], session_id=second["session_id"], source="hook", progress=progress
    )
    engine.write_capture(prepared)  # stored; the crash hits before `mark_done`
    before = everything(engine)

    assert drain_spool(spool, lambda *_: "unused", log, batch_capture(engine, Unshared())) == 1

    after = everything(engine)
    assert sorted(m.id for m in after) == sorted(m.id for m in before)
    assert [m.reinforced_count for m in after] == [m.reinforced_count for m in before]
    facts = by_fact(after)
    assert [facts[fact_word(0, t)][0].turn for t in range(2)] == [0, 1]
    assert spool.pending() == []


def _only(key: str, capture: Any) -> Any:
    """Batch capture of just the turn `key`; the others stay pending."""

    def wrapped(items: list[dict[str, Any]], progresses: list[Any]) -> Any:
        chosen = [i for i, item in enumerate(items) if item["key"] == key]
        for settled in capture([items[i] for i in chosen], [progresses[i] for i in chosen]):
            yield [(chosen[i], outcome) for i, outcome in settled]

    return wrapped


def test_a_turn_of_many_statements_is_written_in_parts_when_someone_waits(
    engine: LocalEngine, spool: Spool
) -> None:
    statements = [exchange(7, turn)[1] for turn in range(4)]
    text = " ".join(statements)  # no one's turn: every statement is kept
    spool.append(turn_entry(text, "long-session", None))
    waited = CountingHold(contended=True)
    assert drain_spool(spool, lambda *_: "unused", log, batch_capture(engine, waited)) == 1
    assert waited.slices == [0, 0, 0, 1]  # one memory per hold; the turn done in the last
    stored = everything(engine)
    assert sorted(m.content for m in stored) == sorted(statements)
    assert {m.turn for m in stored} == {0}
