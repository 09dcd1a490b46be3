"""How the sessions reports write their numbers: a share for JSON, a share with its count
for text, a text cut to one line."""

from __future__ import annotations


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}% ({part}/{whole})" if whole else "    — "


def one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
