"""An injectable clock, so ages, recency and expiry are reproducible in tests and evals."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def frozen_clock(at: datetime) -> Clock:
    """A clock that always answers `at` (must be timezone-aware)."""
    if at.tzinfo is None:
        raise ValueError("a frozen clock needs a timezone-aware datetime")
    fixed = at.astimezone(UTC)
    return lambda: fixed
