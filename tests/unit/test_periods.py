"""The period a query names, read against the clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cortex_tui.recall.periods import Period, period_signal, query_period

NOW = datetime(2023, 10, 20, 15, 30, tzinfo=UTC)  # a Friday


def _days(query: str) -> tuple[str, str] | None:
    found = query_period(query, NOW)
    if found is None:
        return None
    return f"{found.start:%Y-%m-%d}", f"{found.end:%Y-%m-%d}"


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What painting did Melanie show on October 13, 2023?", "2023-10-13", "2023-10-14"),
        ("What did Gina find on 1 February, 2023?", "2023-02-01", "2023-02-02"),
        ("the 3rd of March 2022 release", "2022-03-03", "2022-03-04"),
        ("deploys on 2023-05-07", "2023-05-07", "2023-05-08"),
        ("What did Mel paint in July 2023?", "2023-07-01", "2023-08-01"),
        ("the December 2023 outage", "2023-12-01", "2024-01-01"),
        ("When did Melanie go camping in June?", "2023-06-01", "2023-07-01"),
        ("what broke last May", "2023-05-01", "2023-06-01"),
        ("what changed last October", "2022-10-01", "2022-11-01"),
        ("plans for this December", "2022-12-01", "2023-01-01"),
        ("How many beach trips in 2023?", "2023-01-01", "2024-01-01"),
        ("what did we decide yesterday", "2023-10-19", "2023-10-20"),
        ("what did I do last week", "2023-10-09", "2023-10-16"),
        ("the party last weekend", "2023-10-14", "2023-10-16"),
        ("what did we ship last month", "2023-09-01", "2023-10-01"),
        ("the trip last year", "2022-01-01", "2023-01-01"),
        ("what happened 2 weeks ago", "2023-10-03", "2023-10-10"),
        ("the bug from a few days ago", "2023-10-16", "2023-10-19"),
        ("a couple of weeks ago", "2023-10-03", "2023-10-10"),
        ("a couple  of\nweeks ago, split over lines", "2023-10-03", "2023-10-10"),
        # Up to today, not a calendar span: "the last month" is not "last month".
        ("How many times did I bake in the past two weeks?", "2023-10-06", "2023-10-21"),
        ("which events did I go to during the past month", "2023-09-20", "2023-10-21"),
        ("what did we decide in the last month", "2023-09-20", "2023-10-21"),
        ("errors over the last 3 days", "2023-10-17", "2023-10-21"),
        ("what I read in the previous year", "2022-10-20", "2023-10-21"),
        ("31 February 2023 never was; February 2023 was", "2023-02-01", "2023-03-01"),
    ],
)
def test_named_periods(query: str, start: str, end: str) -> None:
    assert _days(query) == (start, end)


@pytest.mark.parametrize(
    "query",
    [
        "this may fail on Windows",
        "how do I deploy atlas",
        "when did Caroline adopt her dog",
        "port 2023 is taken",
        "the march of progress",
        "the last time the build broke",
    ],
)
def test_queries_naming_no_period(query: str) -> None:
    assert query_period(query, NOW) is None


def test_signal_is_one_inside_and_fades_after_and_before() -> None:
    june = Period(datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC), "June")
    assert period_signal(datetime(2023, 6, 15, tzinfo=UTC), june) == 1.0
    # Told of a week after June ended: still close.
    after = period_signal(datetime(2023, 7, 1, tzinfo=UTC) + timedelta(days=6), june)
    assert after == pytest.approx(0.8)
    # Before the period the signal fades twice as fast (plans are told ahead, less often).
    before = period_signal(datetime(2023, 6, 1, tzinfo=UTC) - timedelta(days=6), june)
    assert before == pytest.approx(0.6)
    assert period_signal(datetime(2023, 9, 1, tzinfo=UTC), june) == 0.0
    assert june.describe() == "'June' (2023-06-01 to 2023-06-30)"
