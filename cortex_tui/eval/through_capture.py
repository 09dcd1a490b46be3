"""A benchmark's conversations played through the capture path, as a user's hooks would
capture them, instead of stored a turn to a memory.

LoCoMo and LongMemEval store every turn raw, so their figures describe a store no user
has: capture keeps only what its rules judge durable. Here each exchange (a person's
turn and the replies to it) is captured as the next turn of its session, at its own
date, with the turn archive on; a turn's evidence is then found through what capture
kept of it: a memory taken from its exchange (the memory links to the exchange's
archived messages, `Memory.said_in`) or the turn's own archived message.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.dataset import Dataset, DatasetMemory
from cortex_tui.models import Quote, RecallResult
from cortex_tui.write.turn_capture import PreparedTurn

SPEAKERS = {"user": "User", "assistant": "Assistant"}
Progress = Callable[[int, int, str], None]


def through_capture(datasets: Sequence[Dataset]) -> list[Dataset]:
    """The datasets to be captured instead of stored raw; only conversations of a
    person and an assistant can be (capture reads `User:` / `Assistant:` turns)."""
    played: list[Dataset] = []
    for dataset in datasets:
        speakers = {m.speaker for m in dataset.memories}
        if dataset.ingest != "raw" or not speakers <= set(SPEAKERS) or not dataset.memories:
            raise InvalidInputError(
                f"--through-capture plays conversations of user and assistant turns "
                f"(LongMemEval); {dataset.name} is not one: leave the flag out for it"
            )
        played.append(dataset.model_copy(update={"ingest": "capture", "explain_misses": False}))
    return played


class SteppedClock:
    """The engine's clock during a capture ingest: each exchange is captured at its own
    date, then the dataset's "now" for its queries."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@dataclass
class Exchange:
    session_id: str
    said_at: datetime
    turns: list[DatasetMemory] = field(default_factory=list)

    def text(self) -> str:
        return "\n\n".join(f"{SPEAKERS[t.speaker or 'user']}: {t.content}" for t in self.turns)


def exchanges(memories: Sequence[DatasetMemory]) -> list[Exchange]:
    """The conversation's exchanges in order: each person's turn with the replies after
    it (replies before any turn of the person are an exchange of their own)."""
    found: list[Exchange] = []
    for memory in memories:
        session = memory.session_id or ""
        current = found[-1] if found else None
        if current is None or current.session_id != session or memory.speaker == "user":
            # An exchange takes its date from its first turn; a session's turns share it,
            # so each is a second after the one before and they keep their order.
            said = memory.created_at or datetime.min
            if current is not None and current.session_id == session:
                said = max(said, current.said_at + timedelta(seconds=1))
            current = Exchange(session, said)
            found.append(current)
        current.turns.append(memory)
    return found


def capture_ingest(
    engine: LocalEngine, dataset: Dataset, clock: SteppedClock, progress: Progress | None
) -> tuple[dict[str, set[str]], list[str]]:
    """Capture the dataset's conversation exchange by exchange; returns each turn's
    label → the ids of what holds it (memories taken from its exchange, its archived
    message) and notes of what was skipped. Durable once at the end, as the service
    makes a spooled batch durable (a flush a write was two thirds of the run)."""
    holders: dict[str, set[str]] = defaultdict(set)
    skipped: list[str] = []
    played = exchanges(dataset.memories)
    with engine.store.deferred_commits():
        for done, exchange in enumerate(played, 1):
            clock.at = exchange.said_at
            try:
                prepared = engine.prepare_capture(
                    exchange.text(), session_id=exchange.session_id, source="eval"
                )
            except InvalidInputError as exc:  # over the turn limit: a hook skips it too
                skipped.append(f"{exchange.turns[0].label}: {exc}")
                continue
            engine.write_capture(prepared)
            for label, held_by in _held(exchange, prepared).items():
                holders[label] |= held_by
            if progress is not None:
                progress(done, len(played), f"capturing {dataset.name}")
    clock.at = dataset.now
    if not skipped:
        return holders, []
    return holders, [f"{len(skipped)} exchange(s) not captured: {'; '.join(skipped[:3])}"]


def _held(exchange: Exchange, prepared: PreparedTurn) -> dict[str, set[str]]:
    """Each turn of the exchange → what holds it: every memory written from the exchange
    (capture reads it whole) and the turn's own archived message."""
    kept = {o.result.memory.id for o in prepared.report().outcomes if o.result is not None}
    archived = prepared.said
    said = list(zip(archived.messages, archived.ids, strict=True)) if archived else []
    held: dict[str, set[str]] = {}
    for turn in exchange.turns:
        held[turn.label] = set(kept)
        mine = next((pair for pair in said if pair[0].speaker == turn.speaker), None)
        if mine is not None:
            held[turn.label].add(mine[1])
            said.remove(mine)
    return held


def ranked_with_quotes(results: Sequence[RecallResult], quotes: Sequence[Quote]) -> list[str]:
    """Memories and archived messages as one ranking: each list keeps its order, and the
    two meet on the relevance gate's scale (what decides what a prompt is given)."""
    ranked: list[str] = []
    i = j = 0
    while i < len(results) or j < len(quotes):
        memory = _relevance(results[i]) if i < len(results) else -1.0
        quote = quotes[j].gate.relevance if j < len(quotes) else -1.0
        if memory >= quote:
            ranked.append(results[i].memory.id)
            i += 1
        else:
            ranked.append(quotes[j].id)
            j += 1
    return ranked


def _relevance(result: RecallResult) -> float:
    gate = result.breakdown.gate
    return gate.relevance if gate is not None else 0.0
