"""A person's judgement of a memory one turn was given, and what it changes: a memory
judged wrong there that is still current is lowered (a new version with less
confidence, journalled, so undo takes it back); one judged useful is left as it is and
stops counting as given for nothing (`given/usefulness.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.given.judgements import Judgement, lowered_confidence
from cortex_tui.given.record import GivenRecord, Verdict

if TYPE_CHECKING:
    from cortex_tui.engine.local import LocalEngine

JUDGED_WRONG = "judged wrong"
"""The source of a version a wrong judgement lowered."""


def judge_turn(
    engine: LocalEngine, injection_id: str, memory_id: str, verdict: Verdict
) -> Judgement:
    record = _record(engine, injection_id)
    given = next((m for m in record.given if m.id.startswith(memory_id)), None)
    if given is None:
        raise InvalidInputError(
            f"memory {memory_id[:8]} was not given on that turn; judge one it was given"
        )
    judgement = Judgement(
        at=engine.now(), injection_id=record.id, memory_id=given.id, verdict=verdict
    )
    # The mark first: a crash before the lowering leaves a judgement to act on again,
    # never a lowered memory nobody can tell the reason for.
    engine.judgement_log.append(judgement)
    if verdict == "wrong":
        memory = engine.get(given.id)
        if memory.is_current:
            confidence = lowered_confidence(memory.confidence)
            judgement.lowered = engine.update(memory.id, confidence=confidence, source=JUDGED_WRONG)
    return judgement


def withdraw_judgement(engine: LocalEngine, judgement_id: str) -> Judgement:
    """Take a judgement back; the lowering it made too, when it is the last change
    (anything done since stays, and `undo` reaches the lowering after it)."""
    judgement = next(
        (j for j in engine.judgement_log.standing() if j.id.startswith(judgement_id)), None
    )
    if judgement is None:
        raise NotFoundError(f"no judgement {judgement_id[:8]} stands; nothing to take back")
    engine.judgement_log.withdraw(judgement.id)
    if judgement.verdict == "wrong" and _lowering_is_last(engine, judgement.memory_id):
        engine.curation.undo(1)
    return judgement


def judged_records(engine: LocalEngine, records: list[GivenRecord]) -> list[GivenRecord]:
    """`records` with the judgements that stand on each attached."""
    by_turn: dict[str, dict[str, Verdict]] = {}
    for judgement in engine.judgement_log.standing():
        by_turn.setdefault(judgement.injection_id, {})[judgement.memory_id] = judgement.verdict
    return [
        record.model_copy(update={"judged": by_turn[record.id]}) if record.id in by_turn else record
        for record in records
    ]


def _record(engine: LocalEngine, injection_id: str) -> GivenRecord:
    record = engine.given_log.find(injection_id)
    if record is None:
        raise NotFoundError(
            f"no turn {injection_id[:8]} is on record (past injections.keep_days, or never "
            "given); `cortex-tui given` lists them"
        )
    return record


def _lowering_is_last(engine: LocalEngine, memory_id: str) -> bool:
    newest = engine.store.journal(limit=1)
    if not newest or newest[0].action != "update":
        return False
    before = newest[0].payload.get("before", [])
    return bool(before) and before[0].get("id") == memory_id
