"""`MemoryFilter` semantics, written once and rendered into each backend's filter type.

The two Qdrant APIs (Edge's pyo3 classes, qdrant-client's pydantic models) express the
same conditions with different constructors, so each backend supplies a small
`ConditionBuilder` and the meaning of a filter lives only here. Every condition ends up
inside the query (pre-filtering), never applied to a top-k afterwards.

Null handling: a JSON `null` and a missing key are both matched by Qdrant's `IsEmpty`
(verified in Edge and in qdrant-client's local mode; `IsNull` matches only an explicit
`null`), so "no project" and "still valid" use `IsEmpty`: it also holds for payloads
written without the key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from pydantic import TypeAdapter

from cortex_tui.models import UtcDatetime
from cortex_tui.store.base import MemoryFilter
from cortex_tui.store.payload import point_ids

C = TypeVar("C")
_utc_datetime: TypeAdapter[datetime] = TypeAdapter(UtcDatetime)

# Memory payload fields with a keyword index: filterable and facetable.
MEMORY_KEYWORD_FIELDS: tuple[str, ...] = (
    "id",
    "type",
    "scope",
    "project",
    "tags",
    "status",
    "conflict_status",
    "session_id",
    "speaker",
    "conflict_group_id",
    "supersedes_id",
    "superseded_by_id",
    "source",
)
# Keyword fields whose index also serves prefix matches (`find_ids_by_prefix`,
# `MemoryFilter.source_prefix`).
MEMORY_PREFIX_FIELDS: tuple[str, ...] = ("id", "source")
MEMORY_DATETIME_FIELDS: tuple[str, ...] = ("valid_from", "valid_to", "created_at")
# Integer fields: filtered by range and ordered by (a session's turns, newest first).
MEMORY_INTEGER_FIELDS: tuple[str, ...] = ("turn",)
MEMORY_TEXT_FIELD = "content"
RELATION_KEYWORD_FIELDS: tuple[str, ...] = ("subject_id", "object_id")
RELATION_DATETIME_FIELDS: tuple[str, ...] = ("valid_to",)
JOURNAL_ORDER_FIELD = "seq"


@dataclass(frozen=True, slots=True)
class Between:
    """The bounds of a datetime range, as RFC 3339 text; a bound left None is open."""

    gt: str | None = None
    gte: str | None = None
    lt: str | None = None
    lte: str | None = None


class ConditionBuilder(Protocol, Generic[C]):
    """Constructors for one backend's filter conditions (a filter is a condition too)."""

    def match_value(self, key: str, value: str) -> C: ...

    def match_any(self, key: str, values: Sequence[str]) -> C: ...

    def match_text(self, key: str, text: str) -> C: ...

    def match_prefix(self, key: str, prefix: str) -> C: ...

    def is_empty(self, key: str) -> C: ...

    def has_id(self, ids: Sequence[str]) -> C: ...

    def datetime_range(self, key: str, bounds: Between) -> C: ...

    def below(self, key: str, value: int) -> C:
        """The integer field `key` is less than `value`."""
        ...

    def combine(
        self, must: Sequence[C] = (), should: Sequence[C] = (), must_not: Sequence[C] = ()
    ) -> C: ...


def _rfc3339(value: datetime) -> str:
    return str(_utc_datetime.dump_python(_utc_datetime.validate_python(value), mode="json"))


def memory_conditions(flt: MemoryFilter, build: ConditionBuilder[C]) -> C | None:
    """The filter as one condition, or None when it lets every memory through.

    An empty list (`statuses=[]`, `ids=[]`) matches nothing, as "one of no values" should.
    """
    must: list[C] = []
    must_not: list[C] = []
    if flt.global_only:
        must.append(build.is_empty("project"))
    elif flt.project is not None:
        own = build.match_value("project", flt.project)
        must.append(
            own if flt.project_only else build.combine(should=[own, build.is_empty("project")])
        )
    if flt.as_of is not None:
        at = _rfc3339(flt.as_of)
        must.append(build.datetime_range("valid_from", Between(lte=at)))
        must.append(build.datetime_range("created_at", Between(lte=at)))
        must.append(
            build.combine(
                should=[
                    build.is_empty("valid_to"),
                    build.datetime_range("valid_to", Between(gt=at)),
                ]
            )
        )
    elif flt.current_only:
        must.append(build.is_empty("valid_to"))
    for key, values in (
        ("status", flt.statuses),
        ("type", flt.types),
        ("scope", flt.scopes),
        ("conflict_status", flt.conflict_statuses),
        ("tags", flt.tags),
        ("speaker", flt.speakers),
        ("source", flt.sources),
    ):
        if values is not None:
            must.append(build.match_any(key, [str(value) for value in values]))
    if flt.exclude_conflict_statuses:
        must_not.append(
            build.match_any("conflict_status", [str(v) for v in flt.exclude_conflict_statuses])
        )
    if flt.ids is not None:
        must.append(build.has_id(point_ids(flt.ids)))
    for key, value in (
        ("session_id", flt.session_id),
        ("conflict_group_id", flt.conflict_group_id),
    ):
        if value is not None:
            must.append(build.match_value(key, value))
    if flt.before_turn is not None:
        must.append(build.below("turn", flt.before_turn))
    for key, start, end in (
        ("created_at", flt.created_from, flt.created_until),
        ("valid_to", flt.ended_from, flt.ended_until),
    ):
        if start is not None or end is not None:
            must.append(
                build.datetime_range(
                    key,
                    Between(
                        gte=_rfc3339(start) if start is not None else None,
                        lt=_rfc3339(end) if end is not None else None,
                    ),
                )
            )
    if flt.source_prefix:  # "" is a prefix of every source: no condition
        must.append(build.match_prefix("source", flt.source_prefix))
    if flt.has_predecessor:
        must_not.append(build.is_empty("supersedes_id"))
    if flt.text:
        must.extend(build.match_text(MEMORY_TEXT_FIELD, word) for word in flt.text.split())
    if not must and not must_not:
        return None
    return build.combine(must=must, must_not=must_not)


def relation_conditions(
    entity_ids: Sequence[str], current_only: bool, build: ConditionBuilder[C]
) -> C:
    """Relations touching any of `entity_ids`, from either end."""
    ids = list(entity_ids)
    ends = build.combine(
        should=[build.match_any("subject_id", ids), build.match_any("object_id", ids)]
    )
    if current_only:
        return build.combine(must=[ends, build.is_empty("valid_to")])
    return ends
