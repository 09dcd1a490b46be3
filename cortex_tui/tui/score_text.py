"""Score breakdowns and "why not?" answers as styled text, from the engine's own numbers.

Nothing is recomputed here except the displayed formula total, which adds the shown
points and multiplies the penalties back in: it must equal the engine's final score,
and a test holds it to that. Memory text enters only as plain `Content` (never markup),
so `[brackets]` in a memory survive.
"""

from __future__ import annotations

from textual.content import Content

from cortex_tui.models import ChannelHit, Explanation, Memory, RecallResult, ScoreBreakdown
from cortex_tui.signals import SIGNAL_NAMES
from cortex_tui.tui.bars import bar
from cortex_tui.tui.colours import signal_variable

BAR_WIDTH = 14
_NAME_WIDTH = 16


def signal_label(name: str) -> str:
    return name.replace("_", " ")


def formula_total(breakdown: ScoreBreakdown) -> float:
    """Σ points (relevance and each prior's) × both penalties, as shown on screen."""
    adjusted = sum(score.contribution for score in breakdown.signals.values())
    return adjusted * breakdown.supersession_penalty * breakdown.conflict_penalty


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
    """Relevance, then eight rows `prior raw × weight → ×factor +points bar`, penalties,
    how relevance was fused, and the channels.

    Every bar shares one scale, a relevance of 1, so bars compare across results and
    show at a glance how little the priors move a score next to relevance.
    """
    rows: list[Content] = [
        Content.styled(
            f"{'signal':<{_NAME_WIDTH}}{'raw':>6}   {'weight':>5}   {'factor':>6}  {'points':>7}",
            "$text-muted",
        )
    ]
    for name in SIGNAL_NAMES:
        score = breakdown.signals.get(name)
        if score is None:
            continue
        colour = f"${signal_variable(name)}"
        if name == "relevance":
            numbers = f"{score.raw:>6.3f}   {'':>5}   {'':>6}  {score.contribution:>7.4f} "
        else:
            numbers = (
                f"{score.raw:>6.3f} × {score.weight:>5.3f} → ×{score.factor:<5.3f}"
                f" {score.contribution:>+7.4f} "
            )
        rows.append(
            Content.assemble(
                (f"{signal_label(name):<{_NAME_WIDTH}}", colour),
                numbers,
                (bar(score.contribution, 1.0, BAR_WIDTH), colour),
            )
        )
    rows.append(Content.styled("─" * (_NAME_WIDTH + 34 + BAR_WIDTH), "$text-muted"))
    rows.append(Content(f"{'relevance × priors':<{_NAME_WIDTH + 26}}{breakdown.adjusted:>7.4f}"))
    rows.append(
        _penalty("supersession", breakdown.supersession_penalty, "if its successor is also here")
    )
    rows.append(_penalty("conflict", breakdown.conflict_penalty, "while its conflict is open"))
    total = formula_total(breakdown)
    rows.append(
        Content.assemble(
            (f"{'final':<{_NAME_WIDTH + 24}}= ", "bold"),
            (f"{total:>7.4f}", "bold"),
            (f"  (engine: {breakdown.final:.4f})", "$text-muted"),
        )
    )
    rows.append(Content(""))
    fused = fusion_content(breakdown)
    if fused is not None:
        rows.append(fused)
    rows.append(channels_content(breakdown))
    return Content("\n").join(rows)


def fusion_content(breakdown: ScoreBreakdown) -> Content | None:
    """How weighted fusion made the relevance, which text the dense channel matched, and
    why the type prior reads as it does when the query names a type."""
    lines: list[Content] = []
    for label, formula in (
        ("relevance ", breakdown.fusion_formula()),
        ("lexical   ", breakdown.lexical_formula()),
        ("dense     ", breakdown.dense_note()),
    ):
        if formula is not None:
            lines.append(Content.assemble((label, "$text-muted"), formula))
    note = breakdown.type_prior_note()
    if note is not None:
        lines.append(Content.assemble(("type prior ", "$text-muted"), note))
    period = breakdown.period_note()
    if period is not None:
        lines.append(Content.assemble(("period prior ", "$text-muted"), period))
    graph = breakdown.graph_note()
    if graph is not None:
        lines.append(Content.assemble(("graph prior ", "$text-muted"), graph))
    return Content("\n").join(lines) if lines else None


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
    for index, (name, hit) in enumerate(breakdown.channels.items()):
        gap = "   " if index else ""
        parts.append(
            f"{gap}{name} #{hit.rank} ({_hit_note(name, hit, breakdown)})"
            if hit
            else f"{gap}{name} —"
        )
    parts.append((f"   cosine {breakdown.cosine:.3f} · fusion {breakdown.fusion}", "$text-muted"))
    return Content.assemble(*parts)


def _hit_note(channel: str, hit: ChannelHit, breakdown: ScoreBreakdown) -> str:
    """What a channel's score means at a glance: BM25 to two places, the graph's hops
    (its score is their inverse), a cosine to three."""
    if channel == "lexical":
        return f"{hit.score:.2f}"
    if channel == "graph":
        hops = breakdown.graph_hops
        return f"{hops} hop{'s' if hops != 1 else ''}"
    return f"{hit.score:.3f}"


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
            gaps.append((kind, mine.adjusted * (1.0 - factor)))
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
