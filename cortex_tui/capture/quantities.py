"""Values written many ways, reduced to one form each: amounts with units, times of day,
days, parts of the day, dates, ordinals and colours.

The write path has to see that "half a minute" restates "30 seconds", that "2 pm" is
"14:00", and that "90 seconds" changes "30 seconds": a comparison of words cannot. Each
recognised value becomes one canonical token ("time=30", "clock=840", "day=wed"), so
equal values compare equal however they were written, and different values of one kind
show up as a substitution of one token for another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cortex_tui.number_words import NUMBER_WORDS

_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_UNIT_TABLES: dict[str, dict[tuple[str, ...], float]] = {
    "time": {
        ("s", "sec", "secs", "second", "seconds"): 1,
        ("ms", "millisecond", "milliseconds"): 0.001,
        ("min", "mins", "minute", "minutes", "m"): 60,
        ("h", "hr", "hrs", "hour", "hours"): 3600,
        ("day", "days", "d"): 86400,
        ("week", "weeks", "wk"): 7 * 86400,
        ("fortnight", "fortnights"): 14 * 86400,
        ("month", "months"): 30 * 86400,
        ("year", "years", "yr", "yrs"): 365 * 86400,
    },
    "size": {
        ("b", "byte", "bytes"): 1,
        ("kb",): 1e3,
        ("mb",): 1e6,
        ("gb",): 1e9,
        ("tb",): 1e12,
        ("kib",): 2**10,
        ("mib",): 2**20,
        ("gib",): 2**30,
        ("tib",): 2**40,
    },
    "length": {
        ("metre", "metres", "meter", "meters"): 1,
        ("km", "kilometre", "kilometres", "kilometer", "kilometers"): 1000,
        ("mile", "miles"): 1609.344,
        ("cm",): 0.01,
    },
    "share": {("%", "percent", "per cent"): 1},
    "money": {
        ("eur", "euro", "euros", "€"): 1,
        ("usd", "dollar", "dollars", "$"): 1,
        ("gbp", "pound", "pounds", "£"): 1,
    },
}
_UNITS: dict[str, tuple[str, float]] = {
    name: (dimension, factor)
    for dimension, table in _UNIT_TABLES.items()
    for names, factor in table.items()
    for name in names
}
AMBIGUOUS_UNITS = frozenset({"m", "d", "s", "b"})
"""Single letters that are units only right after a number ("5 m", never "m" alone)."""

DAYS = {
    name: name[:3] for name in "monday tuesday wednesday thursday friday saturday sunday".split()
}
MONTHS = {
    name: index
    for index, name in enumerate(
        "january february march april may june july august september october november "
        "december".split(),
        1,
    )
}
PERIODS = {
    word: period
    for period, words in {
        "night": "night nights nightly overnight",
        "morning": "morning mornings",
        "afternoon": "afternoon afternoons",
        "evening": "evening evenings",
        "weekday": "weekday weekdays",
        "weekend": "weekend weekends",
        "hourly": "hourly",
        "weekly": "weekly",
        "monthly": "monthly",
        "yearly": "yearly annually",
    }.items()
    for word in words.split()
}
"""Parts of the day and recurrences: "every night" and "every Sunday" are one slot
filled two ways, not two different facts."""
COLOURS = frozenset(
    "red orange yellow green blue purple violet pink brown black white grey gray silver gold "
    "amber teal cyan magenta navy beige".split()
)
_MONTH_ABBREVIATIONS = {name[:3]: index for name, index in MONTHS.items() if name != "may"}
ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "last": -1,
    "final": -1,
}
_ORDINAL_NUMBER = re.compile(r"^(\d{1,2})(st|nd|rd|th)$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
"""A time of day with a colon; "1.29" is a version, and "9.30" a time only with am/pm."""
_DOTTED_CLOCK = re.compile(r"^(\d{1,2})[:.](\d{2})$")
_MERIDIEM = re.compile(r"^(\d{1,2})(?:[:.](\d{2}))?(am|pm|a\.m\.|p\.m\.)$")
_NUMBER = re.compile(r"^\d+(?:,\d{3})*(?:\.\d+)?$")


@dataclass(frozen=True, slots=True)
class Value:
    """One canonical value and how many source words it took."""

    token: str
    width: int


def number(word: str) -> float | None:
    """The number a word spells ("5,000", "2.5", "nine"), if it is one."""
    if _NUMBER.match(word):
        return float(word.replace(",", ""))
    return NUMBER_WORDS.get(word)


def read_value(words: list[str], at: int) -> Value | None:
    """The value starting at `words[at]` (lower-cased words), if one does."""
    word = words[at]
    following = words[at + 1] if at + 1 < len(words) else ""
    after_that = words[at + 2] if at + 2 < len(words) else ""
    if word == "half" and following in ("a", "an") and after_that in _UNITS:
        return _amount(0.5, after_that, 3)
    if word in ("a", "an", "one") and following in _UNITS and _UNITS[following][0] == "time":
        return _amount(1, following, 2) if following not in AMBIGUOUS_UNITS else None
    if clock := _clock(word, following):
        return clock
    if word in DAYS or (word.endswith("s") and word[:-1] in DAYS):
        return Value(f"day={DAYS[word.rstrip('s')]}", 1)
    if word in ("noon", "midday"):
        return Value("clock=720", 1)
    if word == "midnight":
        return Value("clock=0", 1)
    if date := _date(word, following):
        return date
    if word in MONTHS or word in _MONTH_ABBREVIATIONS:
        return Value(f"month={MONTHS.get(word) or _MONTH_ABBREVIATIONS[word]}", 1)
    if word in PERIODS:
        return Value(f"period={PERIODS[word]}", 1)
    if word in COLOURS:
        return Value(f"colour={'grey' if word == 'gray' else word}", 1)
    if word in ORDINALS:
        return Value(f"ordinal={ORDINALS[word]}", 1)
    if match := _ORDINAL_NUMBER.match(word):
        return Value(f"ordinal={int(match.group(1))}", 1)
    amount = number(word)
    if amount is None:
        return None
    if following in _MULTIPLIERS:  # "ten thousand", "2 million"
        amount *= _MULTIPLIERS[following]
        width, following, after_that = 2, after_that, words[at + 3] if at + 3 < len(words) else ""
    else:
        width = 1
    if following in _UNITS and following not in AMBIGUOUS_UNITS | {"a"}:
        return _amount(amount, following, width + 1)
    if following in AMBIGUOUS_UNITS and width == 1:
        return _amount(amount, following, 2)
    if following == "per" and after_that == "cent":
        return _amount(amount, "%", width + 2)
    return Value(f"number={_plain(amount)}", width)


def _amount(amount: float, unit: str, width: int) -> Value:
    dimension, factor = _UNITS[unit]
    return Value(f"{dimension}={_plain(amount * factor)}", width)


def _clock(word: str, following: str) -> Value | None:
    if match := _MERIDIEM.match(word):
        hour, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
        return _minutes(hour, minute, half[0], 1)
    if following in ("am", "pm", "a.m.", "p.m.") and (
        (match := _DOTTED_CLOCK.match(word)) or word.isdigit()
    ):
        hour = int(match.group(1)) if match else int(word)
        minute = int(match.group(2)) if match else 0
        return _minutes(hour, minute, following[0], 2)
    if match := _CLOCK.match(word):
        return _minutes(int(match.group(1)), int(match.group(2)), "", 1)
    return None


def _minutes(hour: int, minute: int, half: str, width: int) -> Value | None:
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 24 or minute > 59:
        return None
    return Value(f"clock={hour % 24 * 60 + minute}", width)


def _date(word: str, following: str) -> Value | None:
    """ "14 march", "march 14", "14th march", "march 14th"."""
    day_word, month_word = (word, following) if following in MONTHS else (following, word)
    month = MONTHS.get(month_word) or _MONTH_ABBREVIATIONS.get(month_word)
    if month is None:
        return None
    match = _ORDINAL_NUMBER.match(day_word)
    day = int(match.group(1)) if match else int(day_word) if day_word.isdigit() else None
    if day is None or not 1 <= day <= 31:
        return None
    return Value(f"date={month:02d}-{day:02d}", 2)


def _plain(amount: float) -> str:
    return str(int(amount)) if float(amount).is_integer() else f"{amount:g}"
