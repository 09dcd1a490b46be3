"""Numbers people spell out ("three", "a dozen", "twice"): one table for every reader
of them, the write path's values (`capture/quantities.py`) and the periods a query
names (`recall/periods.py`)."""

from __future__ import annotations

NUMBER_WORDS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "dozen": 12,
    "twice": 2,
    "thrice": 3,
}
