"""Memories given often and never judged useful: what crowds the agent's context for
nothing, found from the records and a person's judgements of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from cortex_tui.given.judgements import Judgement
from cortex_tui.given.record import GivenRecord
from cortex_tui.models import UtcDatetime


class Unhelpful(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    given: int
    """Turns whose recalled block held it."""
    wrong: int
    """Times a person judged it wrong where it was given."""
    last_at: UtcDatetime
    line: str
    """Its line as the last turn gave it."""


def unhelpful(
    records: Iterable[GivenRecord], judgements: Sequence[Judgement], min_given: int
) -> list[Unhelpful]:
    """The memories recalled into at least `min_given` of `records` (newest first) that
    no judgement calls useful, the most given first. Standing rules are left out: they
    are given whatever the prompt is, by design."""
    useful = {j.memory_id for j in judgements if j.verdict == "useful"}
    wrong: dict[str, int] = {}
    for judgement in judgements:
        if judgement.verdict == "wrong":
            wrong[judgement.memory_id] = wrong.get(judgement.memory_id, 0) + 1
    counts: dict[str, int] = {}
    last: dict[str, tuple[datetime, str]] = {}
    for record in records:
        for memory in record.given:
            if memory.block != "recalled" or memory.id in useful:
                continue
            counts[memory.id] = counts.get(memory.id, 0) + 1
            last.setdefault(memory.id, (record.at, record.line_of(memory)))
    found = [
        Unhelpful(
            id=memory_id,
            given=count,
            wrong=wrong.get(memory_id, 0),
            last_at=last[memory_id][0],
            line=last[memory_id][1],
        )
        for memory_id, count in counts.items()
        if count >= min_given
    ]
    return sorted(found, key=lambda item: (-item.given, -item.wrong, item.id))
