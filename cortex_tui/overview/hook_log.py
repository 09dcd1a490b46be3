"""The hooks' own log (`logs/hooks.log`, see `hooks/logs.py`) read back as figures.

Each hook run writes one line: `STAMP LEVEL KIND hook (VIA) done in N ms (...)` or
`... failed after N ms: ERROR`. Lines that do not parse (another version's wording, a
torn last line) are skipped: the figures are a health signal, not an audit.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from datetime import datetime

from cortex_tui.overview.models import HookFigures

_LINE = re.compile(
    r"^(?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d{3} \w+ "
    r"(?P<kind>pre|post) hook \([\w-]+\) "
    r"(?:done in (?P<done>\d+) ms\b.*|failed after (?P<failed>\d+) ms: (?P<error>.*))$"
)
STAMP = "%Y-%m-%d %H:%M:%S"
"""Local time, as the hook writes it."""


def hook_figures(lines: Iterable[str], since: datetime) -> list[HookFigures]:
    """Per hook kind (pre, then post), its runs since `since` (naive local time)."""
    times: dict[str, list[float]] = {"pre": [], "post": []}
    failures: dict[str, int] = {"pre": 0, "post": 0}
    last_failure: dict[str, str] = {}
    for line in lines:
        match = _LINE.match(line.rstrip("\n"))
        if match is None or datetime.strptime(match["stamp"], STAMP) < since:
            continue
        kind = match["kind"]
        if match["done"] is not None:
            times[kind].append(float(match["done"]))
        else:
            failures[kind] += 1
            last_failure[kind] = f"{match['stamp']}: {match['error']}"
    return [
        HookFigures(
            kind=kind,
            runs=len(times[kind]) + failures[kind],
            failures=failures[kind],
            p50_ms=_percentile(times[kind], 0.5),
            p95_ms=_percentile(times[kind], 0.95),
            last_failure=last_failure.get(kind),
        )
        for kind in ("pre", "post")
    ]


def first_stamp(lines: list[str]) -> datetime | None:
    """The time of the first line that parses: how far back a log file reaches."""
    for line in lines:
        match = _LINE.match(line.rstrip("\n"))
        if match is not None:
            return datetime.strptime(match["stamp"], STAMP)
    return None


def _percentile(samples: list[float], share: float) -> float | None:
    if not samples:
        return None
    if share == 0.5:
        return round(statistics.median(samples), 1)
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)
