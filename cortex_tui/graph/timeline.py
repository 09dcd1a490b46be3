"""Where a new relation goes among the relations of its (subject, predicate).

An exclusive predicate (works_at, leads, lives_in...) holds one object at a time, so its
relations form a timeline: each holds from its `valid_from` until the next statement with
a different object. A statement is slotted in by its own time, not by when it arrives:
the statement it interrupts ends where it begins, and it ends where the next later one
begins, so an old fact learnt late is stored already closed. Relations are never deleted
here: they end by getting a `valid_to`. A tie (same valid_from, different objects) goes
to the later arrival, which is the better informed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from cortex_tui.models import Relation


@dataclass(frozen=True, slots=True)
class Placement:
    """`relation` is the new relation to store, or (`is_new` False) the existing one that
    already states it; `closed` are existing relations whose validity now ends earlier."""

    relation: Relation
    is_new: bool
    closed: list[Relation] = field(default_factory=list)


def holds_at(relation: Relation, at: datetime) -> bool:
    return relation.valid_from <= at and (relation.valid_to is None or at < relation.valid_to)


def place(new: Relation, same_pair: Sequence[Relation], *, exclusive: bool) -> Placement:
    """Place `new` among `same_pair`: the relations with its subject and predicate."""
    at = new.valid_from
    for existing in same_pair:
        if existing.object_id == new.object_id and (
            existing.valid_to is None or holds_at(existing, at)
        ):
            return Placement(existing, is_new=False)
    if not exclusive:
        return Placement(new, is_new=True)
    closed = [
        r.model_copy(update={"valid_to": at})
        for r in same_pair
        if r.object_id != new.object_id and holds_at(r, at)
    ]
    later = [r.valid_from for r in same_pair if r.valid_from > at]
    placed = new.model_copy(update={"valid_to": min(later)}) if later else new
    return Placement(placed, is_new=True, closed=closed)
