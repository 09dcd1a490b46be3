"""Small, pure text helpers shared by panes: ages against the engine's clock, one-liners.

Ages are always measured from `engine.now()`, never the wall clock, so a frozen clock
gives the same screen every time (and the demo data, dated in 2026, looks right).
"""

from __future__ import annotations

from datetime import datetime

from cortex_tui.curation import journal
from cortex_tui.store.base import JournalEntry

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


def age(then: datetime, now: datetime) -> str:
    """A compact age: 5m, 7h, 12d, 4mo, 2y ("now" under a minute, "future" if ahead)."""
    seconds = (now - then).total_seconds()
    if seconds < 0:
        return "future"
    if seconds < _MINUTE:
        return "now"
    if seconds < _HOUR:
        return f"{int(seconds // _MINUTE)}m"
    if seconds < 2 * _DAY:
        return f"{int(seconds // _HOUR)}h"
    days = int(seconds // _DAY)
    if days < 60:
        return f"{days}d"
    if days < 730:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def ago(then: datetime, now: datetime) -> str:
    """`age` as a phrase: "12d ago", "just now", "in the future"."""
    shown = age(then, now)
    if shown == "now":
        return "just now"
    if shown == "future":
        return "in the future"
    return f"{shown} ago"


def one_line(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def undone_summary(entries: list[JournalEntry]) -> str:
    """What an undo reversed: each action with its note (a write-path decision's reason,
    an entity merge's names), newest first."""
    return "Undid " + "; ".join(journal.describe(e) for e in entries)
