"""Models ↔ Qdrant payloads, identical for both backends.

A payload is the model's JSON dump (`model_dump(mode="json")`: enums as values,
datetimes as RFC3339 UTC strings, which Qdrant's datetime index parses), so it reads
naturally in a Qdrant dashboard and filters run on the real fields. Two additions:

- `_floats`: the exact text (`repr`) of every float field. Qdrant Edge parses stored
  JSON numbers with a fast float parser that is off by one ulp for about one float in
  ten (measured: 10,742 of 100,000 `random.random()` values), and a server's REST layer
  may do the same; the numbers stay in place for filtering and display, the strings
  make the round trip exact.
- `_context`: index-side data of a memory of a conversation (the previous turn's text
  and what its words weigh), kept so the lexical vector can be rebuilt; dropped on the
  way back to the model.
- the journal's free-form `payload` is stored as one JSON string (`payload_json`): it is
  never filtered on, and a string keeps nested floats and large integers exact.

Point ids are the models' UUID strings; Qdrant accepts only UUIDs or integers, so ids
are validated before a write.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from cortex_tui.errors import InvalidInputError, StoreError
from cortex_tui.models import UtcDatetime
from cortex_tui.store.base import JournalEntry, Vector

_EXACT_FLOATS = "_floats"
CONTEXT_KEY = "_context"
_M = TypeVar("_M", bound=BaseModel)
_utc_datetime: TypeAdapter[datetime] = TypeAdapter(UtcDatetime)


_CANONICAL_UUID = re.compile(
    r"\A[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z", re.IGNORECASE
)


def is_point_id(value: str) -> bool:
    """Whether `value` can be a point id here (a UUID in canonical text form). A pattern
    rather than parsing: recall checks every candidate's id, ~100 a query."""
    return _CANONICAL_UUID.match(value) is not None


def point_ids(ids: Iterable[str]) -> list[str]:
    """The ids that can exist in a store: others (short ids, typos) cannot match a
    point, and passing them to Qdrant would be an error rather than "not found"."""
    return [value for value in ids if is_point_id(value)]


def require_point_ids(ids: Iterable[str]) -> None:
    """Reject a write whose ids Qdrant cannot store."""
    for value in ids:
        if not is_point_id(value):
            raise InvalidInputError(f"id {value!r} is not a UUID; store ids must be UUIDs")


def require_vectors(count: int, vectors: Sequence[Vector], dimension: int, what: str) -> None:
    """Check a write's vectors up front: Qdrant would reject them with a bare error."""
    if len(vectors) != count:
        raise InvalidInputError(f"{count} {what} but {len(vectors)} vectors")
    for vector in vectors:
        if len(vector) != dimension:
            raise StoreError(
                f"a {len(vector)}-d vector cannot be stored next to {dimension}-d ones; "
                "the embedder changed without `cortex-tui reembed`"
            )


def to_payload(model: BaseModel) -> dict[str, Any]:
    """A model's JSON dump plus the exact text of its float fields."""
    payload = model.model_dump(mode="json")
    floats = {key: repr(value) for key, value in payload.items() if isinstance(value, float)}
    if floats:
        payload[_EXACT_FLOATS] = floats
    return payload


def from_payload(model: type[_M], payload: Mapping[str, Any] | None) -> _M:
    """Rebuild a model from `to_payload`'s output.

    A payload that no longer validates (written by another version, or damaged) is a
    `StoreError` naming the point, not a pydantic traceback deep inside a query.
    """
    if payload is None:
        raise StoreError(f"a stored {model.__name__} has no payload")
    data = dict(payload)
    floats = data.pop(_EXACT_FLOATS, None) or {}
    data.pop(CONTEXT_KEY, None)
    for key, text in floats.items():
        data[key] = float(text)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StoreError(
            f"stored {model.__name__} {data.get('id')!r} is invalid: {exc.errors()[0]['msg']}"
        ) from None


def journal_to_payload(entry: JournalEntry, seq: int) -> dict[str, Any]:
    """`seq` orders the journal: timestamps can tie (a frozen clock, a fast batch)."""
    try:
        created_at = _utc_datetime.validate_python(entry.created_at)
        payload_json = json.dumps(entry.payload, ensure_ascii=False, allow_nan=False)
    except (ValidationError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"journal entry {entry.id!r} cannot be stored: {exc}") from None
    return {
        "id": entry.id,
        "created_at": _utc_datetime.dump_python(created_at, mode="json"),
        "action": entry.action,
        "payload_json": payload_json,
        "seq": seq,
    }


def journal_from_payload(payload: Mapping[str, Any] | None) -> JournalEntry:
    if payload is None:
        raise StoreError("a stored journal entry has no payload")
    return JournalEntry(
        id=payload["id"],
        created_at=_utc_datetime.validate_python(payload["created_at"]),
        action=payload["action"],
        payload=json.loads(payload["payload_json"]),
    )
