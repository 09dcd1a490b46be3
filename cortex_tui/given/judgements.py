"""A person's judgement of a memory a turn was given: useful there, or wrong there.

Kept beside the records (`$CORTEX_HOME/injections/judgements.jsonl`), one whole line per
judgement, ids only (no text, so nothing a privacy step must see). A judgement taken back
(the TUI's undo) is a later line naming it: the file is only ever appended to, and a
torn last line is skipped like a record's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cortex_tui.given.record import Verdict
from cortex_tui.given.segments import ends_torn
from cortex_tui.models import Memory, UtcDatetime, new_id
from cortex_tui.private import open_private, private_dir

LOWERED_BY = 0.7
"""A memory judged wrong where it was given keeps this share of its confidence."""
LOWEST_CONFIDENCE = 0.05


class Judgement(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=new_id)
    at: UtcDatetime
    injection_id: str
    memory_id: str
    verdict: Verdict
    lowered: Memory | None = Field(
        default=None,
        description="the new version, with less confidence, a wrong memory was lowered to",
    )


class _Withdrawal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    withdraws: str


class JudgementLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, judgement: Judgement) -> None:
        self._write(judgement.model_dump_json(exclude={"lowered"}))

    def withdraw(self, judgement_id: str) -> None:
        self._write(_Withdrawal(withdraws=judgement_id).model_dump_json())

    def standing(self) -> list[Judgement]:
        """The judgements not taken back, oldest first."""
        found: dict[str, Judgement] = {}
        for line in self._lines():
            try:
                withdrawal = _Withdrawal.model_validate_json(line)
            except ValidationError:
                pass
            else:
                found.pop(withdrawal.withdraws, None)
                continue
            try:
                judgement = Judgement.model_validate_json(line)
            except ValidationError:
                continue  # a line a crash cut short
            found[judgement.id] = judgement
        return list(found.values())

    def _lines(self) -> Iterable[bytes]:
        try:
            return self.path.read_bytes().split(b"\n")
        except FileNotFoundError:
            return []

    def _write(self, line: str) -> None:
        private_dir(self.path.parent)
        with self._lock, open_private(self.path, "a+b") as out:
            if ends_torn(out.fileno()):
                out.write(b"\n")
            out.write(line.encode() + b"\n")


def lowered_confidence(confidence: float) -> float:
    return max(LOWEST_CONFIDENCE, round(confidence * LOWERED_BY, 3))
