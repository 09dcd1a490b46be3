"""Reading statements: one canonical form for values written many ways, so the write
path compares what was claimed rather than how it was written."""

from __future__ import annotations

import pytest

from cortex_tui.write.judge.contradiction import judge_offline
from cortex_tui.write.judge.statement import read


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("The timeout is 30 seconds.", "The timeout is half a minute."),
        ("The timeout is 90s.", "The timeout is 1.5 minutes."),
        ("Backups run at 2 pm.", "Backups run at 14:00."),
        ("Backups run at noon.", "Backups run at 12:00."),
        ("Pods get 4 GiB.", "Pods get 4096 MiB."),
        ("I run 5 km.", "I run 5,000 metres."),
        ("I walk ten thousand steps.", "I walk 10,000 steps."),
        ("Standup is on Fridays.", "Standup is on Friday."),
        ("The party is on 14 March.", "The party is on March 14th."),
        ("We use PostgreSQL.", "We use Postgres."),
        ("The office isn't open.", "The office is not open."),
        ("Mei's the lead.", "Mei is the lead."),
    ],
)
def test_one_value_written_two_ways_reads_the_same(one: str, other: str) -> None:
    assert read(one).texts == read(other).texts
    assert judge_offline(one, other).verdict in ("repeat", "restatement")


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        ("Production runs Kubernetes 1.29.", "Production runs Kubernetes 1.31.", "contradiction"),
        ("The timeout is 30 seconds.", "The timeout is 2 minutes.", "contradiction"),
        ("The timeout is 30 seconds.", "The timeout was raised to 2 minutes.", "update"),
        ("The shop is closed on Sundays.", "The shop is open on Sundays.", "contradiction"),
        ("I prefer tabs over spaces.", "I prefer spaces over tabs.", "contradiction"),
        ("The web app uses React.", "The mobile app uses Flutter.", "distinct"),
        ("Redis holds the sessions.", "Redis also holds the rate limits.", "distinct"),
        # a measure changed in a long sentence: the word beside it says it is the same one
        (
            "I have been dedicating about an hour each day to coding exercises, which helps.",
            "I have been dedicating about two hours each day to coding exercises lately.",
            "update",
        ),
        # a total reached so far that grew is its later state, not a rival claim …
        (
            "I've used my Fitbit for 6 months now, and it keeps me on track with my steps.",
            "I just realized I've used my Fitbit for 9 months now.",
            "update",
        ),
        (
            "I'm on episode 10 of the series.",
            "I just finished 50 episodes of the series.",
            "update",
        ),
        ("I've read 200 pages of Dune so far.", "I've read 240 pages of Dune so far.", "update"),
        # … a total that shrank, or a value that is no total, is a rival claim
        (
            "I've read 240 pages of Dune so far.",
            "I've read 200 pages of Dune so far.",
            "contradiction",
        ),
        ("The cache holds 200 entries.", "The cache holds 400 entries.", "contradiction"),
        (
            "The release so far is set for 10 am.",
            "The release so far is set for 11 am.",
            "contradiction",
        ),
        # things named on both sides, none shared: another claim, not a paraphrase
        (
            "The group was influenced by movements for the independence of former colonies.",
            "The group was influenced by leftist groups in many countries.",
            "distinct",
        ),
        # … but another subject with another measure is another fact
        ("The production cluster has 12 nodes.", "The staging cluster has 3 nodes.", "distinct"),
        ("Each worker pod gets 2 CPU cores.", "Each API pod gets 1 CPU core.", "distinct"),
        ("We have met twice.", "We have met three times.", "update"),
        ("We have met three times.", "We have met twice.", "contradiction"),
    ],
)
def test_structure_decides(old: str, new: str, verdict: str) -> None:
    assert judge_offline(old, new).verdict == verdict, judge_offline(old, new).reason


def test_new_before_a_name_is_part_of_the_name() -> None:
    assert read("She grew up in New Hampshire.").cue is None
    assert "new" in read("She grew up in New Hampshire.").texts
    assert read("We set up a new CI runner.").cue == "new"


def test_a_pasted_document_is_read_in_bounded_time() -> None:
    text = "word " * 200_000
    assert len(read(text).tokens) < 1000
    assert judge_offline(text, text + " more").verdict
