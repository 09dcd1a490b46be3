"""Day by day: what was created, superseded and captured.

A memory is *captured* when the capture path wrote it: a hook's turn (`hook`), a
`capture` call, or an agent transcript that file sync read (a `sync:` source with a
session). Everything else (remember, edits, notes indexed or synced) is created only.
Works on stored payloads (`Store.scan_memories` with `FIELDS`): a calendar of a
100,000-memory store must not parse 100,000 models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from cortex_tui.overview.models import DayCounts

FIELDS = ("id", "created_at", "valid_to", "superseded_by_id", "source", "session_id", "status")
CAPTURE_SOURCES = frozenset({"hook", "capture"})


def is_captured(payload: Mapping[str, Any]) -> bool:
    source = str(payload.get("source") or "")
    return source in CAPTURE_SOURCES or (
        source.startswith("sync:") and payload.get("session_id") is not None
    )


def is_live(payload: Mapping[str, Any]) -> bool:
    """Deleted memories are gone as far as a person is concerned; archived ones stay."""
    return payload.get("status") != "deleted"


def day_of(stamp: str, zone: tzinfo | None) -> str:
    """The ISO date of an RFC3339 time, in `zone`."""
    return datetime.fromisoformat(stamp).astimezone(zone).date().isoformat()


def created_day(payload: Mapping[str, Any], zone: tzinfo | None) -> str:
    return day_of(str(payload["created_at"]), zone)


def superseded_day(payload: Mapping[str, Any], zone: tzinfo | None) -> str | None:
    """The day a newer version replaced it (its validity ended), else None."""
    ended = payload.get("valid_to")
    if not payload.get("superseded_by_id") or not ended:
        return None
    return day_of(str(ended), zone)


def day_start(day: date, zone: tzinfo | None) -> datetime:
    """Midnight at the start of `day` in `zone` (UTC when None)."""
    return datetime.combine(day, time(), tzinfo=zone or UTC)


def day_counts(
    created: Iterable[Mapping[str, Any]],
    ended: Iterable[Mapping[str, Any]],
    last: date,
    days: int,
    zone: tzinfo | None,
) -> list[DayCounts]:
    """`days` days ending on `last`, oldest first, quiet days kept as zeros (a calendar
    with holes would misplace every day after the first gap). `created` and `ended` are
    the memories created, and the versions that ended, in that window (or more)."""
    first = last - timedelta(days=days - 1)
    counts = {
        day: DayCounts(day=day)
        for day in ((first + timedelta(days=offset)).isoformat() for offset in range(days))
    }
    for payload in created:
        bucket = counts.get(created_day(payload, zone)) if is_live(payload) else None
        if bucket is not None:
            bucket.created += 1
            bucket.captured += is_captured(payload)
    for payload in ended:
        day = superseded_day(payload, zone) if is_live(payload) else None
        bucket = counts.get(day) if day else None
        if bucket is not None:
            bucket.superseded += 1
    return list(counts.values())
