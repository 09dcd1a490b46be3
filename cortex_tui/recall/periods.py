"""The period a query names ("in May 2023", "last week", "on 13 October, 2023").

The period prior favours memories dated in it. Parsing is a handful of patterns rather
than a date library: the hook runs this on every prompt, and the forms people write in
a question are few — a calendar date, a month (with or without its year), a year, and
"yesterday", "last week", "3 months ago", "the past two weeks" and their kin, read
against the clock ("last month" is the calendar month before this one; "the last month"
the thirty days up to today). A query naming no period (or several) gets none, and the
prior then moves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from cortex_tui.number_words import NUMBER_WORDS

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for name in names
}
# Month words that are also ordinary words, or short enough to be: only capitalised.
_AMBIGUOUS = frozenset(
    {"may", "mar", "jan", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
)
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {**NUMBER_WORDS, "a": 1, "an": 1, "a couple of": 2, "a few": 3, "few": 3}
_COUNT_WORDS = "|".join(n.replace(" ", r"\s+") for n in sorted(_NUMBERS, key=len, reverse=True))
_NAMED_SPANS = r"last\s+(?:night|weekend|week|month|year)|this\s+(?:week|month|year)"

# Most specific first: the first pattern that matches decides.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("iso", r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
        ("date", rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
        ("date", rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
        ("month", rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b"),
        ("relative_month", rf"\b(?P<which>last|this|in|during|since)\s+{_MONTH}(?!\s+\d)\b"),
        ("ago", rf"\b(?P<count>\d+|{_COUNT_WORDS})\s+(?P<unit>day|week|month|year)s?\s+ago\b"),
        (
            "trailing",
            rf"\bthe\s+(?:past|last|previous)\s+(?:(?P<count>\d+|{_COUNT_WORDS})\s+)?"
            r"(?P<unit>day|week|month|year)s?\b",
        ),
        ("named", rf"\b(?P<name>yesterday|today|{_NAMED_SPANS})\b"),
        ("year", rf"\b(?:in|during|of|since)\s+{_YEAR}\b"),
    )
)


@dataclass(frozen=True, slots=True)
class Period:
    """[start, end) in UTC and the words that named it."""

    start: datetime
    end: datetime
    text: str

    @property
    def length(self) -> timedelta:
        return self.end - self.start

    def describe(self) -> str:
        """'in June' (2023-06-01 to 2023-06-30): the words and the days they mean."""
        last = self.end - timedelta(days=1)
        days = (
            f"{self.start:%Y-%m-%d}"
            if last <= self.start
            else f"{self.start:%Y-%m-%d} to {last:%Y-%m-%d}"
        )
        return f"'{self.text}' ({days})"


def query_period(query: str, now: datetime) -> Period | None:
    """The period `query` names, read against `now`; None when it names none."""
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(query):
            month = match.groupdict().get("month")
            if month and month.islower() and month in _AMBIGUOUS:
                continue  # "this may fail" names no month; "this May" does
            found = _period(kind, match, now)
            if found is not None:
                return found
    return None


def _period(kind: str, match: re.Match[str], now: datetime) -> Period | None:
    text = match.group(0)
    groups = match.groupdict()
    try:
        if kind in ("iso", "date"):
            month = int(groups["month"]) if kind == "iso" else _MONTHS[groups["month"].lower()]
            start = datetime(int(groups["year"]), month, int(groups["day"]), tzinfo=UTC)
            return Period(start, start + timedelta(days=1), text)
        if kind == "month":
            return _month(int(groups["year"]), _MONTHS[groups["month"].lower()], text)
        if kind == "relative_month":
            return _relative_month(
                groups["which"].lower(), _MONTHS[groups["month"].lower()], now, text
            )
        if kind == "ago":
            count = " ".join(groups["count"].lower().split())
            days = _UNITS[groups["unit"].lower()] * int(_NUMBERS.get(count, count))
            centre = _day(now) - timedelta(days=days)
            half = timedelta(days=max(1, days // 4))
            return Period(centre - half, centre + half + timedelta(days=1), text)
        if kind == "trailing":  # "the past two weeks": up to today, not a calendar span
            count = " ".join((groups["count"] or "one").lower().split())
            days = _UNITS[groups["unit"].lower()] * int(_NUMBERS.get(count, count))
            end = _day(now) + timedelta(days=1)
            return Period(end - timedelta(days=days + 1), end, text)
        if kind == "named":
            return _named(" ".join(groups["name"].lower().split()), now, text)
        start = datetime(int(groups["year"]), 1, 1, tzinfo=UTC)
        return Period(start, start.replace(year=start.year + 1), text)
    except ValueError:  # "31 February 2023": not a date
        return None


def _day(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _month(year: int, month: int, text: str) -> Period:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return Period(start, end, text)


def _relative_month(which: str, month: int, now: datetime, text: str) -> Period:
    """ "last May" is the latest May before this month; "this May" and "in May" the May
    of this year, or of last year while May has not come yet."""
    year = now.year
    if which == "last":
        if month >= now.month:
            year -= 1
    elif month > now.month:
        year -= 1
    return _month(year, month, text)


def _named(name: str, now: datetime, text: str) -> Period:
    today = _day(now)
    week = today - timedelta(days=today.weekday())
    spans = {
        "today": (today, today + timedelta(days=1)),
        "yesterday": (today - timedelta(days=1), today),
        "last night": (today - timedelta(days=1), today),
        "last weekend": (week - timedelta(days=2), week),
        "this week": (week, week + timedelta(days=7)),
        "last week": (week - timedelta(days=7), week),
        "this month": (today.replace(day=1), _month(today.year, today.month, text).end),
        "this year": (
            today.replace(month=1, day=1),
            today.replace(year=today.year + 1, month=1, day=1),
        ),
        "last year": (
            today.replace(year=today.year - 1, month=1, day=1),
            today.replace(month=1, day=1),
        ),
    }
    if name == "last month":
        first = today.replace(day=1)
        previous = first - timedelta(days=1)
        return _month(previous.year, previous.month, text)
    start, end = spans[name]
    return Period(start, end, text)


def period_signal(moment: datetime, period: Period) -> float:
    """1 for a memory dated inside the period, falling linearly to 0 one period length
    after it (people tell of an event after it happened: a trip in June comes up in a
    session of early July) and half a length before it (plans are told ahead)."""
    if period.start <= moment < period.end:
        return 1.0
    length = period.length.total_seconds()
    if moment >= period.end:
        return max(0.0, 1.0 - (moment - period.end).total_seconds() / length)
    return max(0.0, 1.0 - (period.start - moment).total_seconds() / (length / 2))
