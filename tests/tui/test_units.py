"""Pure helpers behind the panes: bars, ages, rank movement, hold-back reasons, prefs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cortex_tui.models import ChannelHit, Memory, RecallResult, ScoreBreakdown, SignalScore
from cortex_tui.signals import PRIOR_NAMES
from cortex_tui.tui.bars import bar
from cortex_tui.tui.compare import compare
from cortex_tui.tui.formatting import age, ago, one_line
from cortex_tui.tui.preferences import load_preferences
from cortex_tui.tui.score_text import formula_total, held_back

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def _result(memory_id: str, rank: int, relevance: float, conflict: float = 1.0) -> RecallResult:
    signals = {
        name: SignalScore(raw=0.5, weight=0.1, factor=1.05, contribution=0.04)
        for name in PRIOR_NAMES
    }
    signals["relevance"] = SignalScore(raw=relevance, weight=1.0, contribution=relevance)
    adjusted = sum(s.contribution for s in signals.values())
    final = adjusted * conflict
    breakdown = ScoreBreakdown(
        signals=signals,
        adjusted=adjusted,
        conflict_penalty=conflict,
        final=final,
        cosine=relevance,
    )
    memory = Memory(
        id=memory_id, content=f"memory {memory_id}", created_at=NOW, updated_at=NOW, valid_from=NOW
    )
    return RecallResult(memory=memory, rank=rank, score=final, breakdown=breakdown)


def test_bar_is_fixed_width_and_proportional() -> None:
    assert bar(1.0, 1.0, 8) == "█" * 8
    assert bar(0.0, 1.0, 8) == " " * 8
    assert bar(0.5, 1.0, 8) == "████    "
    assert len(bar(0.33, 1.0, 8)) == 8
    assert bar(2.0, 1.0, 4) == "████"


@pytest.mark.parametrize(
    ("delta", "shown"),
    [
        (timedelta(seconds=30), "now"),
        (timedelta(minutes=5), "5m"),
        (timedelta(hours=30), "30h"),
        (timedelta(days=12), "12d"),
        (timedelta(days=120), "4mo"),
        (timedelta(days=800), "2y"),
        (timedelta(hours=-1), "future"),
    ],
)
def test_age_is_measured_from_the_given_now(delta: timedelta, shown: str) -> None:
    assert age(NOW - delta, NOW) == shown


def test_ago_reads_as_a_phrase() -> None:
    assert ago(NOW - timedelta(seconds=5), NOW) == "just now"
    assert ago(NOW - timedelta(days=12), NOW) == "12d ago"
    assert ago(NOW + timedelta(hours=1), NOW) == "in the future"


def test_one_line_flattens_and_cuts() -> None:
    assert one_line("a\n b   c", 10) == "a b c"
    assert one_line("abcdefghij", 5) == "abcd…"


def test_compare_reports_moves_new_and_dropped_with_causes() -> None:
    a = [_result("m1", 1, 0.9), _result("m2", 2, 0.8), _result("m3", 3, 0.7)]
    b = [_result("m2", 1, 0.95), _result("m1", 2, 0.6), _result("m4", 3, 0.5)]
    moves = {m.memory.id: m for m in compare(a, b)}
    assert moves["m2"].label == "↑1"
    assert moves["m1"].label == "↓1"
    assert moves["m4"].label == "new"
    assert moves["m3"].label == "dropped"
    cause = moves["m2"].cause()
    assert cause is not None and cause[0] == "relevance"
    assert cause[1] == pytest.approx(0.15)
    assert [m.memory.id for m in compare(a, b)] == ["m2", "m1", "m4", "m3"]


def test_compare_names_no_cause_when_nothing_changed() -> None:
    """The same query under the same profile: every row is `=` with no cause."""
    a = [_result("m1", 1, 0.9), _result("m2", 2, 0.8)]
    b = [_result("m1", 1, 0.9), _result("m2", 2, 0.8)]
    assert [(m.label, m.cause()) for m in compare(a, b)] == [("=", None), ("=", None)]


def test_held_back_names_the_biggest_gap_and_penalties() -> None:
    cutoff = _result("c", 20, 0.9)
    mine = _result("m", 25, 0.5, conflict=0.8)
    reasons = dict(held_back(mine, cutoff))
    assert reasons["relevance"] == pytest.approx(0.4)
    assert reasons["conflict penalty"] == pytest.approx(mine.breakdown.adjusted * 0.2)
    assert held_back(mine, cutoff)[0][0] == "relevance"


def test_formula_total_multiplies_contributions_and_penalties() -> None:
    result = _result("m", 1, 0.7, conflict=0.8)
    assert formula_total(result.breakdown) == pytest.approx(result.score)


def test_preferences_read_theme_and_keymap_and_report_problems(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[tui]\ntheme = "cortex-dawn"\n[tui.keymap]\n"recall.compare" = "k"\n"app.help" = 3\n'
    )
    prefs = load_preferences(tmp_path)
    assert prefs.theme == "cortex-dawn"
    assert prefs.keymap == {"recall.compare": "k"}
    assert len(prefs.problems) == 1 and "app.help" in prefs.problems[0]


def test_a_keymap_written_for_the_turns_pane_moves_the_given_panes_keys(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[tui.keymap]\n"app.pane.turns" = "ctrl+g"\n"turns.useful" = "Y"\n'
        '"turns.wrong" = "W"\n"given.wrong" = "X"\n'
    )
    prefs = load_preferences(tmp_path)
    assert prefs.keymap == {"app.pane.given": "ctrl+g", "given.useful": "Y", "given.wrong": "X"}
    assert prefs.problems == []


def test_broken_config_gives_defaults_and_one_reason(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[tui\n")
    prefs = load_preferences(tmp_path)
    assert prefs.theme is None and prefs.keymap == {}
    assert len(prefs.problems) == 1


def test_each_registry_entry_names_its_pane_as_the_pane_names_itself() -> None:
    from cortex_tui.tui.registry import PANES

    for entry in PANES:
        pane = entry.load()
        assert (pane.pane_id, pane.key, pane.title) == (entry.pane_id, entry.key, entry.title)
        assert pane.purpose.startswith(entry.title)
    assert len({entry.key for entry in PANES}) == len(PANES)


def test_the_channels_line_shows_whatever_channels_ran() -> None:
    """A channel is rendered by its name: adding one needs no change to the renderers."""
    from cortex_tui.cli.render import breakdown_lines
    from cortex_tui.tui.score_text import channels_content

    breakdown = _result("a" * 8, 1, 0.8).breakdown.model_copy(
        update={
            "channels": {
                "dense": ChannelHit(rank=3, score=0.512),
                "archive": ChannelHit(rank=1, score=0.734),
                "graph": None,
            }
        }
    )
    tui = channels_content(breakdown).plain
    assert "dense #3 (0.512)   archive #1 (0.734)   graph —" in tui
    [cli] = [line for line in breakdown_lines(breakdown) if "channels:" in line]
    assert "dense #3 (0.512) · archive #1 (0.734) · graph —" in cli
