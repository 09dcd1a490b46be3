"""Score breakdowns and "why not?" answers as styled text, from the engine's own numbers.

Nothing is recomputed here except the displayed formula total, which multiplies the
shown contributions and penalties back together: it must equal the engine's final score,
and a test holds it to that. Memory text enters only as plain `Content` (never markup),
so `[brackets]` in a memory survive.
"""

from __future__ import annotations

from textual.content import Content

from cortex_tui.models import SIGNAL_NAMES, Explanation, Memory, RecallResult, ScoreBreakdown
from cortex_tui.tui.bars import bar
from cortex_tui.tui.colours import signal_variable

BAR_WIDTH = 14
_NAME_WIDTH = 16


def signal_label(name: str) -> str:
    return name.replace("_", " ")


def formula_total(breakdown: ScoreBreakdown) -> float:
    """Σ contributions × supersession penalty × conflict penalty, as shown on screen."""
    weighted = sum(score.contribution for score in breakdown.signals.values())
    return weighted * breakdown.supersession_penalty * breakdown.conflict_penalty


def memory_header(memory: Memory) -> Content:
    """Id, type, scope, project and tags, then the memory's text (as plain text)."""
    facts = [memory.short_id, memory.type.value, memory.scope.value]
    if memory.project:
        facts.append(f"project {memory.project}")
    if memory.tags:
        facts.append("tags " + ", ".join(memory.tags))
    parts: list[Content | tuple[str, str] | str] = [(" · ".join(facts), "$text-muted")]
    if not memory.is_current:
        parts.append(("  superseded", "bold $superseded"))
    if memory.conflict_status.value == "active":
        parts.append(("  in conflict", "bold $conflict"))
    parts.extend(["\n", Content(memory.content)])
    return Content.assemble(*parts)


def breakdown_content(breakdown: ScoreBreakdown) -> Content:
    """Nine aligned rows `signal raw × weight = contribution bar`, penalties, channels, total.

    Bars share one scale, the largest weight, so a full bar is the most any signal could
    add and bars compare across results.
    """
    scale = max((s.weight for s in breakdown.signals.values()), default=0.0)
    rows: list[Content] = [
        Content.styled(
            f"{'signal':<{_NAME_WIDTH}}{'raw':>6}   {'weight':>6}   {'contrib':>7}", "$text-muted"
        )
    ]
    for name in SIGNAL_NAMES:
        score = breakdown.signals.get(name)
        if score is None:
            continue
        colour = f"${signal_variable(name)}"
        rows.append(
            Content.assemble(
                (f"{signal_label(name):<{_NAME_WIDTH}}", colour),
                f"{score.raw:>6.3f} × {score.weight:>6.3f} = {score.contribution:>7.4f} ",
                (bar(score.contribution, scale, BAR_WIDTH), colour),
            )
        )
    rows.append(Content.styled("─" * (_NAME_WIDTH + 30 + BAR_WIDTH), "$text-muted"))
    rows.append(Content(f"{'weighted sum':<{_NAME_WIDTH}}{'':>22}{breakdown.weighted:>7.4f}"))
    rows.append(
        _penalty("supersession", breakdown.supersession_penalty, "if its successor is also here")
    )
    rows.append(_penalty("conflict", breakdown.conflict_penalty, "while its conflict is open"))
    total = formula_total(breakdown)
    rows.append(
        Content.assemble(
            (f"{'final':<{_NAME_WIDTH}}{'':>20}= ", "bold"),
            (f"{total:>7.4f}", "bold"),
            (f"  (engine: {breakdown.final:.4f})", "$text-muted"),
        )
    )
    rows.append(Content(""))
    rows.append(channels_content(breakdown))
    return Content("\n").join(rows)


def _penalty(kind: str, factor: float, when: str) -> Content:
    applied = factor < 1.0
    style = f"bold $penalty-{kind}" if applied else "$text-muted"
    note = "applied" if applied else f"none ({when})"
    return Content.assemble(
        (f"{kind + ' penalty':<{_NAME_WIDTH + 6}}", style),
        (f"× {factor:.2f}", style),
        ("  " + note, "$text-muted"),
    )


def channels_content(breakdown: ScoreBreakdown) -> Content:
    """Where each retrieval channel ranked the memory (— when it did not find it)."""
    parts: list[Content | tuple[str, str] | str] = [("channels  ", "$text-muted")]
    dense = breakdown.dense
    parts.append(f"dense #{dense.rank} ({dense.score:.3f})" if dense else "dense —")
    lexical = breakdown.lexical
    parts.append(f"   lexical #{lexical.rank} ({lexical.score:.2f})" if lexical else "   lexical —")
    graph = breakdown.graph
    if graph:
        hops = breakdown.graph_hops
        parts.append(f"   graph #{graph.rank} ({hops} hop{'s' if hops != 1 else ''})")
    else:
        parts.append("   graph —")
    parts.append((f"   cosine {breakdown.cosine:.3f} · fusion {breakdown.fusion}", "$text-muted"))
    return Content.assemble(*parts)


def result_detail(result: RecallResult) -> Content:
    """The detail panel for one result: who it is, then its full breakdown."""
    heading = Content.styled(f"#{result.rank} · score {result.score:.4f}", "bold")
    return Content("\n").join(
        [heading, memory_header(result.memory), Content(""), breakdown_content(result.breakdown)]
    )


def held_back(result: RecallResult, cutoff: RecallResult) -> list[tuple[str, float]]:
    """Signals (and penalties) where `result` scores below `cutoff`, largest gap first.

    Penalties are expressed as what they cost in final score, so they compare with
    contribution gaps.
    """
    gaps: list[tuple[str, float]] = []
    mine, theirs = result.breakdown, cutoff.breakdown
    for name in SIGNAL_NAMES:
        if name in mine.signals and name in theirs.signals:
            gap = theirs.signals[name].contribution - mine.signals[name].contribution
            if gap > 0:
                gaps.append((signal_label(name), gap))
    for kind, factor in (
        ("supersession penalty", mine.supersession_penalty),
        ("conflict penalty", mine.conflict_penalty),
    ):
        if factor < 1.0:
            gaps.append((kind, mine.weighted * (1.0 - factor)))
    return sorted(gaps, key=lambda item: -item[1])


def why_not_content(explanation: Explanation) -> Content:
    """Where the memory ranks for the query, and what keeps it out of the top `limit`."""
    memory = explanation.memory
    lines: list[Content] = [
        Content.styled(f"Why not {memory.short_id}?", "bold $accent"),
        Content.assemble(("query ", "$text-muted"), Content(explanation.query)),
        memory_header(memory),
        Content(""),
    ]
    if explanation.excluded_by:
        lines.append(
            Content.assemble(("Filtered out: ", "bold $error"), Content(explanation.excluded_by))
        )
        return Content("\n").join(lines)
    result, rank, limit = explanation.result, explanation.rank, explanation.limit
    if result is None or rank is None:
        lines.append(Content.styled("Not among the candidates of any channel.", "bold $warning"))
        return Content("\n").join(lines)
    if rank <= limit:
        lines.append(
            Content.assemble(("Recalled: ", "bold $success"), f"rank #{rank} of the top {limit}.")
        )
    else:
        lines.append(
            Content.assemble(
                ("Held back: ", "bold $warning"), f"rank #{rank}; recall returns the top {limit}."
            )
        )
        if explanation.above:
            cutoff = explanation.above[-1]
            lines.append(
                Content(
                    f"The cut-off, #{cutoff.rank}, scores {cutoff.score:.4f}; "
                    f"this one {result.score:.4f} "
                    f"(short by {cutoff.score - result.score:.4f})."
                )
            )
            for name, gap in held_back(result, cutoff)[:4]:
                lines.append(Content.assemble("  ", (f"{name:<22}", "bold"), f"−{gap:.4f}"))
    lines.extend([Content(""), breakdown_content(result.breakdown)])
    return Content("\n").join(lines)
