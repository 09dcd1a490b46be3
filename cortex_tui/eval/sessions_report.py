"""Figures of a sessions run: recall of core labels, precision, memories per prompt and
per type, for the development part, the held-out part and all; then each session, each
missed core label with where it went, and each stored memory no label holds. Then what
later sessions were given (`given_report.py`)."""

from __future__ import annotations

from typing import Any

from cortex_tui.eval.figures import one_line, percent, ratio
from cortex_tui.eval.given_report import given_json, given_text
from cortex_tui.eval.sessions_runner import PARTS, SessionsRun
from cortex_tui.eval.sessions_score import SessionScore, Totals


def _totals_json(t: Totals) -> dict[str, Any]:
    return {
        "sessions": t.sessions,
        "prompts": t.prompts,
        "core_labels": t.core,
        "core_found": t.core_found,
        "recall": ratio(t.core_found, t.core),
        "optional_labels": t.optional,
        "optional_found": t.optional_found,
        "stored": t.stored,
        "matched": t.matched,
        "precision": ratio(t.matched, t.stored),
        "per_prompt": ratio(t.stored, t.prompts),
        "labels_by_type": {
            k: {"found": t.by_label_type_found[k], "core": n}
            for k, n in sorted(t.by_label_type.items())
        },
        "memories_by_type": {
            k: {"matched": t.by_memory_type_matched[k], "stored": n}
            for k, n in sorted(t.by_memory_type.items())
        },
    }


def _session_json(s: SessionScore) -> dict[str, Any]:
    return {
        "session": s.session,
        "part": s.split,
        "prompts": s.prompts,
        "recall": ratio(s.core_found, s.core),
        "core_found": s.core_found,
        "core_labels": s.core,
        "precision": ratio(s.matched, s.stored),
        "stored": s.stored,
        "matched": s.matched,
        "seconds": round(s.seconds, 1),
        "missed": [
            {"label": m.label.id, "type": m.label.type, "text": m.label.text, "why": m.why}
            for m in s.missed
        ],
        "unmatched": [
            {
                "id": u.memory.id,
                "type": u.memory.type.value,
                "content": u.memory.content,
                "why": u.why,
            }
            for u in s.unmatched
        ],
        "hook_failures": s.hook_failures,
    }


def sessions_json(run: SessionsRun) -> dict[str, Any]:
    return {
        "corpus": run.corpus,
        "seconds": round(run.seconds, 1),
        "not_run": run.not_run,
        "variants": [
            {
                "name": v.name,
                "changes": v.changes,
                "parts": {part: _totals_json(totals) for part, totals in _parts(run, v.name)},
                "sessions": [_session_json(s) for s in run.scores[v.name]],
                "given": given_json(run, v.name),
            }
            for v in run.variants
        ],
    }


def _parts(run: SessionsRun, variant: str) -> list[tuple[str, Totals]]:
    """Each part the run has sessions of, then all of them."""
    parts = [(part, run.totals(variant, part)) for part in PARTS]
    return [(p, t) for p, t in parts if t.sessions] + [("all", run.totals(variant, None))]


def _row(name: str, part: str, t: Totals) -> str:
    return (
        f"{name:<14} {part:<9} {t.sessions:>8} {t.prompts:>7}  {percent(t.core_found, t.core):<17}"
        f" {percent(t.matched, t.stored):<17} {t.per_prompt:>6.2f}"
    )


def sessions_text(run: SessionsRun) -> str:
    lines = [f"sessions: {run.corpus} ({run.seconds:.0f} s)"]
    lines.append(
        f"{'variant':<14} {'part':<9} {'sessions':>8} {'prompts':>7}  {'core recall':<17}"
        f" {'precision':<17} {'stored/prompt':>6}"
    )
    for v in run.variants:
        lines += [_row(v.name, part, totals) for part, totals in _parts(run, v.name)]
    for v in run.variants:
        lines += _details(v.name, run)
    lines += given_text(run)
    if run.not_run:
        lines.append("")
        lines.append("not run (no transcript here):")
        lines += [f"  {where}" for where in run.not_run]
    return "\n".join(lines)


def _details(variant: str, run: SessionsRun) -> list[str]:
    t = run.totals(variant, None)
    label_types = " · ".join(
        f"{k} {t.by_label_type_found[k]}/{n}" for k, n in sorted(t.by_label_type.items())
    )
    memory_types = " · ".join(
        f"{k} {t.by_memory_type_matched[k]}/{n}" for k, n in sorted(t.by_memory_type.items())
    )
    lines = [
        "",
        f"{variant}: core labels found by type: {label_types or '—'}",
        f"{variant}: memories matching a label by type: {memory_types or '—'}",
        f"{variant}: per session",
    ]
    for s in run.scores[variant]:
        lines.append(
            f"  {s.session:<34} {s.split:<9} {s.prompts:>4} prompts  recall "
            f"{percent(s.core_found, s.core):<17} precision {percent(s.matched, s.stored):<17}"
            + (f"  {len(s.hook_failures)} hook failure(s)" if s.hook_failures else "")
        )
    lines.append(f"{variant}: missed core labels")
    for s in run.scores[variant]:
        for m in s.missed:
            lines.append(f"  {s.session} {m.label.id} [{m.label.type}] {m.label.text}")
            lines.append(f"      → {m.why}")
    lines.append(f"{variant}: stored memories no label holds")
    for s in run.scores[variant]:
        for u in s.unmatched:
            lines.append(
                f"  {s.session} {u.memory.short_id} [{u.memory.type.value}] "
                f"{one_line(u.memory.content)}"
            )
            lines.append(f"      ← {u.why}")
    return lines
