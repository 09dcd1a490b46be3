"""`LocalGiven`: the record of what memory each agent turn was given, and a person's
judgements of it.

A memory judged wrong where a turn was given it, and still current, is lowered (a new
version with less confidence, journalled, so undo takes it back); one judged useful is
left as it is and stops counting as given for nothing (`given/usefulness.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime

from cortex_tui.engine.core import EngineCore
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.given.judgements import Judgement, JudgementLog, lowered_confidence
from cortex_tui.given.log import GivenLog
from cortex_tui.given.record import GivenRecord, Verdict, redacted
from cortex_tui.given.segments import FOLDER
from cortex_tui.given.usefulness import Unhelpful, unhelpful
from cortex_tui.models import Memory
from cortex_tui.store.base import JournalEntry

JUDGED_WRONG = "judged wrong"
"""The source of a version a wrong judgement lowered."""

Lower = Callable[[str, float, str], Memory]
"""A new version of a memory with this confidence, from this source (the engine's
`update`)."""
Undo = Callable[[int], list[JournalEntry]]


class LocalGiven:
    def __init__(self, core: EngineCore, lower: Lower, undo: Undo) -> None:
        self._core = core
        self._lower = lower
        self._undo = undo
        settings = core.settings
        self.log = GivenLog(settings.home / FOLDER, settings.injections, core.clock)
        """What memory gave each agent turn (`given/log.py`)."""
        self.judgements = JudgementLog(settings.home / FOLDER / "judgements.jsonl")
        """A person's judgements of what the turns were given."""

    def records(
        self,
        session: str | None = None,
        agent: str | None = None,
        limit: int = 50,
        before: datetime | None = None,
    ) -> list[GivenRecord]:
        found = self.log.newest(session=session, agent=agent, limit=limit, before=before)
        by_turn: dict[str, dict[str, Verdict]] = {}
        for judgement in self.judgements.standing():
            by_turn.setdefault(judgement.injection_id, {})[judgement.memory_id] = judgement.verdict
        return [
            record.model_copy(update={"judged": by_turn[record.id]})
            if record.id in by_turn
            else record
            for record in found
        ]

    def unhelpful_memories(self, min_given: int = 3) -> list[Unhelpful]:
        records = self.log.newest(limit=sys.maxsize)
        return unhelpful(records, self.judgements.standing(), min_given)

    def record(self, record: GivenRecord) -> None:
        """The privacy step's guard first: a memory written before a secret's kind was
        known, or a prompt pasted with a key in it, is kept with a placeholder."""
        self.log.append(redacted(record, self._core.privacy.clean))

    def judge_turn(self, injection_id: str, memory_id: str, verdict: Verdict) -> Judgement:
        record = self._record(injection_id)
        given = next((m for m in record.given if m.id.startswith(memory_id)), None)
        if given is None:
            raise InvalidInputError(
                f"memory {memory_id[:8]} was not given on that turn; judge one it was given"
            )
        judgement = Judgement(
            at=self._core.now(), injection_id=record.id, memory_id=given.id, verdict=verdict
        )
        # The mark first: a crash before the lowering leaves a judgement to act on again,
        # never a lowered memory nobody can tell the reason for.
        self.judgements.append(judgement)
        if verdict == "wrong":
            memory = self._core.stored(given.id)
            if memory.is_current:
                confidence = lowered_confidence(memory.confidence)
                judgement.lowered = self._lower(memory.id, confidence, JUDGED_WRONG)
        return judgement

    def withdraw_judgement(self, judgement_id: str) -> Judgement:
        """Take a judgement back; the lowering it made too, when it is the last change
        (anything done since stays, and `undo` reaches the lowering after it)."""
        judgement = next(
            (j for j in self.judgements.standing() if j.id.startswith(judgement_id)), None
        )
        if judgement is None:
            raise NotFoundError(f"no judgement {judgement_id[:8]} stands; nothing to take back")
        self.judgements.withdraw(judgement.id)
        if judgement.verdict == "wrong" and self._lowering_is_last(judgement.memory_id):
            self._undo(1)
        return judgement

    def _record(self, injection_id: str) -> GivenRecord:
        record = self.log.find(injection_id)
        if record is None:
            raise NotFoundError(
                f"no turn {injection_id[:8]} is on record (past injections.keep_days, or "
                "never given); `cortex-tui given` lists them"
            )
        return record

    def _lowering_is_last(self, memory_id: str) -> bool:
        newest = self._core.store.journal(limit=1)
        if not newest or newest[0].action != "update":
            return False
        before = newest[0].payload.get("before", [])
        return bool(before) and before[0].get("id") == memory_id
