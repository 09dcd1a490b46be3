"""Figures of what later sessions were given, end to end: given when needed (the prompt's
block states the label its probe needs; with the session-start block counted too), given
for nothing (unrelated prompts given any memory), block precision (lines stating the
probe's label / lines given to probes) and tokens; by part, session and label type, and
where each miss was lost."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cortex_tui.eval.figures import one_line, percent, ratio
from cortex_tui.eval.probes_score import LOSSES, GivenTotals, ProbeScore
from cortex_tui.eval.sessions_runner import PARTS, SessionsRun

Keep = Callable[[ProbeScore], bool]


def given_json(run: SessionsRun, variant: str) -> dict[str, Any]:
    asked = run.asked.get(variant, [])
    return {
        "parts": {
            name: _totals_json(run.given(variant, keep)) for name, keep in _parts(run, variant)
        },
        "sessions": {
            session: _totals_json(run.given(variant, _of_session(session)))
            for session in _sessions(asked)
        },
        "label_types": {
            kind: _totals_json(run.given(variant, _of_type(kind))) for kind in _types(asked)
        },
        "missed": [
            {
                "session": s.session,
                "label": s.label.id,
                "prompt": s.prompt,
                "lost": s.lost,
                "why": s.why,
                "at_start": s.at_start,
            }
            for s in asked
            if s.label is not None and not s.given
        ],
        "unrelated_given": [
            {"repo": s.repo, "part": s.part, "prompt": s.prompt, "lines": len(s.lines)}
            for s in asked
            if s.label is None and s.lines
        ],
    }


def _totals_json(t: GivenTotals) -> dict[str, Any]:
    return {
        "probes": t.probes,
        "given": t.given,
        "given_when_needed": ratio(t.given, t.probes),
        "given_with_start": t.given_with_start,
        "given_when_needed_with_start": ratio(t.given_with_start, t.probes),
        "probe_lines": t.probe_lines,
        "probe_matching_lines": t.probe_matching,
        "block_precision": ratio(t.probe_matching, t.probe_lines),
        "unrelated": t.unrelated,
        "unrelated_given": t.unrelated_given,
        "given_for_nothing": ratio(t.unrelated_given, t.unrelated),
        "tokens_a_block": round(t.tokens_a_block, 1),
        "tokens_a_prompt": round(t.tokens_a_prompt, 1),
        "lost": {loss: t.lost[loss] for loss in LOSSES if t.lost[loss]},
    }


def _parts(run: SessionsRun, variant: str) -> list[tuple[str, Keep]]:
    asked = run.asked.get(variant, [])
    present = [p for p in PARTS if any(s.part == p for s in asked)]
    return [(p, _of_part(p)) for p in present] + [("all", lambda _: True)]


def _of_part(part: str) -> Keep:
    return lambda score: score.part == part


def _of_session(session: str) -> Keep:
    return lambda score: score.session == session


def _of_type(kind: str) -> Keep:
    return lambda score: score.label is not None and score.label.type == kind


def _sessions(asked: list[ProbeScore]) -> list[str]:
    return list(dict.fromkeys(s.session for s in asked if s.session is not None))


def _types(asked: list[ProbeScore]) -> list[str]:
    return sorted({s.label.type for s in asked if s.label is not None})


def _row(name: str, t: GivenTotals) -> str:
    needed = percent(t.given, t.probes)
    with_start = percent(t.given_with_start, t.probes)
    precision = percent(t.probe_matching, t.probe_lines)
    nothing = percent(t.unrelated_given, t.unrelated)
    return (
        f"  {name:<42} {needed:<18} {with_start:<18} {precision:<18} {nothing:<16}"
        f" {t.tokens_a_block:>6.0f} {t.tokens_a_prompt:>6.0f}"
    )


def given_text(run: SessionsRun) -> list[str]:
    lines: list[str] = []
    for v in run.variants:
        asked = run.asked.get(v.name, [])
        if not asked:
            continue
        lines += [
            "",
            f"{v.name}: given, end to end (each probe asked in a new session after the replay)",
            f"  {'':<42} {'given when needed':<18} {'+ session start':<18}"
            f" {'block precision':<18} {'given for nothing':<16} {'tok/blk':>6} {'tok/pr':>6}",
        ]
        lines += [_row(name, run.given(v.name, keep)) for name, keep in _parts(run, v.name)]
        lines.append(f"{v.name}: given, by session")
        lines += [_row(s, run.given(v.name, _of_session(s))) for s in _sessions(asked)]
        lines.append(f"{v.name}: given, by label type")
        lines += [_row(k, run.given(v.name, _of_type(k))) for k in _types(asked)]
        whole = run.given(v.name)
        lost = " · ".join(f"{loss} {whole.lost[loss]}" for loss in LOSSES if whole.lost[loss])
        lines.append(f"{v.name}: misses lost where: {lost or '—'}")
        for s in asked:
            if s.label is not None and not s.given:
                start = " (given at session start)" if s.at_start else ""
                lines.append(f"  {s.session} {s.label.id} [{s.label.type}] {one_line(s.prompt)}")
                lines.append(f"      → {s.lost}{start}: {one_line(s.why)}")
    return lines
