"""Plain-text rendering for the terminal (no Rich: the CLI must start fast)."""

from __future__ import annotations

from datetime import datetime

from cortex_tui.format import humanise_age
from cortex_tui.models import (
    ArchivedMessage,
    ChannelHit,
    Decision,
    Explanation,
    HeldBack,
    Memory,
    RecallResult,
    ScoreBreakdown,
    Stats,
)
from cortex_tui.signals import SIGNAL_NAMES

BAR_WIDTH = 20


def bar(value: float, scale: float, width: int = BAR_WIDTH) -> str:
    if scale <= 0:
        return ""
    filled = max(0.0, min(1.0, value / scale)) * width
    full = int(filled)
    return "█" * full + ("▌" if filled - full >= 0.5 else "")


def memory_header(memory: Memory, now: datetime) -> str:
    where = f"project:{memory.project}" if memory.project else "global"
    state = ""
    if memory.valid_to is not None:
        state = f"  superseded→{(memory.superseded_by_id or '?')[:8]}"
    if memory.status.value != "active":
        state += f"  [{memory.status.value}]"
    if memory.conflict_status.value == "active":
        state += "  [conflict]"
    tags = f"  #{' #'.join(memory.tags)}" if memory.tags else ""
    return (
        f"{memory.short_id}  {memory.type.value:<10} {memory.scope.value:<9} {where}  "
        f"{humanise_age(memory.created_at, now)} old{tags}{state}"
    )


def memory_detail(memory: Memory) -> str:
    fields = memory.model_dump(mode="json", exclude={"decisions"})
    lines = [f"{name}: {value}" for name, value in fields.items()]
    lines.append("decisions:" if memory.decisions else "decisions: none")
    lines += [f"  {line}" for d in memory.decisions for line in decision_lines(d)]
    return "\n".join(lines)


SPEAKERS = {"user": "user", "assistant": "assistant"}


def message_lines(messages: list[ArchivedMessage]) -> list[str]:
    """Archived messages as said: when, which turn, who, then the text."""
    lines: list[str] = []
    for message in messages:
        who = SPEAKERS.get(message.speaker or "", "someone")
        turn = f"turn {message.turn}" if message.turn is not None else "no turn"
        lines.append(f"{message.said_at:%Y-%m-%d %H:%M}  {turn}  {who}  {message.short_id}")
        lines.append(f"  {message.text}")
    return lines


def said_in_lines(memory: Memory, said: list[ArchivedMessage]) -> list[str]:
    """The turn a captured memory was taken from, as `get` shows it under the memory."""
    if not memory.said_in:
        return []
    if not said:
        return ["", "taken from a turn the archive no longer keeps"]
    session = said[0].session_id or "no session"
    return ["", f"taken from this turn of session {session}:", *message_lines(said)]


def decision_lines(decision: Decision) -> list[str]:
    """A write-path decision: when, what and why; the statement it absorbed, if any."""
    lines = [f"{decision.at:%Y-%m-%d %H:%M}  {decision.describe()}"]
    if decision.statement:
        lines.append(f"    absorbed: {decision.statement}")
    return lines


def result_line(result: RecallResult, now: datetime) -> str:
    moved = f"  (LLM re-rank: was #{result.reranked_from})" if result.reranked_from else ""
    return (
        f"{result.rank:>3}. {result.score:.4f}  {memory_header(result.memory, now)}{moved}\n"
        f"      {result.memory.content}"
    )


def _channel(name: str, hit: ChannelHit | None) -> str:
    return f"{name} #{hit.rank} ({hit.score:.3f})" if hit else f"{name} —"


def breakdown_lines(b: ScoreBreakdown) -> list[str]:
    """Relevance, each prior as raw × weight → factor and the points it adds, the
    penalties, the fusion and the channels; the points add up to `adjusted`."""
    lines = [f"      {'signal':<16}{'raw':>7}  {'weight':>6}  {'factor':>6}  {'points':>7}"]
    for name in SIGNAL_NAMES:
        s = b.signals[name]
        if name == "relevance":
            numbers = f"{s.raw:>7.3f}  {'':>6}  {'':>6}  {s.contribution:>7.4f}"
        else:
            numbers = f"{s.raw:>7.3f}  {s.weight:>6.3f}  ×{s.factor:<5.3f}  {s.contribution:>+7.4f}"
        lines.append(f"      {name:<16}{numbers}  {bar(s.contribution, 1.0)}")
    lines.append(
        f"      relevance × priors {b.adjusted:.4f} × supersession {b.supersession_penalty:.2f} "
        f"× conflict {b.conflict_penalty:.2f} = final {b.final:.4f}"
    )
    for label, note in (
        ("relevance ", b.fusion_formula()),
        ("lexical   ", b.lexical_formula()),
        ("dense     ", b.dense_note()),
        ("type prior: ", b.type_prior_note()),
        ("period prior: ", b.period_note()),
        ("graph prior: ", b.graph_note()),
        ("bears on it: ", b.gate.formula() if b.gate is not None else None),
    ):
        if note is not None:
            lines.append(f"      {label}{note}")
    lexical = f", bm25 {b.lexical_score:.3f}" if b.lexical_score is not None else ""
    hops = f", {b.graph_hops} hop(s)" if b.graph_hops else ""
    channels = " · ".join(_channel(name, hit) for name, hit in b.channels.items())
    lines.append(
        f"      channels: {channels}  (cosine {b.cosine:.3f}{lexical}{hops}; fusion {b.fusion})"
    )
    return lines


def held_back_lines(held: list[HeldBack], *, explain: bool) -> list[str]:
    """What the relevance gate kept out: how many and why, each one with `explain`."""
    if not held:
        return []
    if not explain:
        return [f"{len(held)} held back by the relevance gate: {held[0].reason}"]
    lines = [f"held back by the relevance gate ({len(held)}):"]
    for memory in held:
        lines.append(f"  {memory.rank:>3}. {memory.id[:8]}  {memory.text[:70]}")
        lines.append(f"       {memory.reason}")
    return lines


def explanation_text(e: Explanation) -> str:
    head = f"memory {e.memory.short_id}: {e.memory.content}"
    if e.excluded_by:
        return f"{head}\nexcluded from recall for this query: {e.excluded_by}"
    if e.result is None or e.rank is None:
        return head
    verdict = "inside" if e.rank <= e.limit else "outside"
    lines = [head, f"rank {e.rank} for {e.query!r} ({verdict} the top {e.limit})"]
    lines += breakdown_lines(e.result.breakdown)
    if e.above:
        lines.append("ranked above it:")
        for other in e.above:
            delta = other.score - e.result.score
            lines.append(
                f"  {other.rank:>3}. {other.score:.4f} (+{delta:.4f})  "
                f"{other.memory.short_id}  {other.memory.content[:70]}"
            )
    return "\n".join(lines)


def stats_text(s: Stats) -> str:
    def block(title: str, counts: dict[str, int]) -> list[str]:
        rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return [f"{title}:"] + [f"  {k or '(global)':<20}{v:>7}" for k, v in rows]

    lines = [
        f"store      {s.store}",
        f"embedder   {s.embedder} ({s.dimension}-d)",
        f"memories   {s.total} total, {s.current} current, {s.superseded} superseded, "
        f"{s.deleted} deleted",
        f"conflicts  {s.active_conflicts} memories in active conflict groups",
        f"graph      {s.entities} entities, {s.relations} relations",
    ]
    lines += block("by type", s.by_type)
    lines += block("by scope", s.by_scope)
    lines += block("by project", s.by_project)
    return "\n".join(lines)
