"""Comparing two rankings: rank movement per memory and the contribution that moved it.

Used for "two queries" and "one query under two weight profiles" alike: B's results are
listed in B's order with their movement from A (↑3, ↓1, =, new), then A's results that B
dropped. The cause is the signal (or penalty) whose contribution changed most in the
direction of the move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

from cortex_tui.models import Memory, RecallResult
from cortex_tui.signals import SIGNAL_NAMES
from cortex_tui.tui.colours import signal_variable
from cortex_tui.tui.score_text import memory_header, signal_label

NOTICEABLE = 0.0005
"""A contribution change below this rounds to zero in the table: no cause to name."""


@dataclass(frozen=True)
class Movement:
    """One memory's place in ranking A and ranking B (None where it is absent)."""

    a: RecallResult | None
    b: RecallResult | None

    @property
    def memory(self) -> Memory:
        found = self.b or self.a
        assert found is not None, "a movement has at least one side"
        return found.memory

    @property
    def label(self) -> str:
        if self.a is None:
            return "new"
        if self.b is None:
            return "dropped"
        shift = self.a.rank - self.b.rank
        if shift > 0:
            return f"↑{shift}"
        if shift < 0:
            return f"↓{-shift}"
        return "="

    @property
    def score_delta(self) -> float | None:
        if self.a is None or self.b is None:
            return None
        return self.b.score - self.a.score

    def deltas(self) -> list[tuple[str, float]]:
        """Contribution change (B − A) per signal, then each penalty's change in cost."""
        if self.a is None or self.b is None:
            return []
        a, b = self.a.breakdown, self.b.breakdown
        changes = [
            (signal_label(name), b.signals[name].contribution - a.signals[name].contribution)
            for name in SIGNAL_NAMES
            if name in a.signals and name in b.signals
        ]
        for kind, fa, fb in (
            ("supersession penalty", a.supersession_penalty, b.supersession_penalty),
            ("conflict penalty", a.conflict_penalty, b.conflict_penalty),
        ):
            if fa != fb:
                changes.append((kind, b.adjusted * fb - b.adjusted * fa))
        return changes

    def cause(self) -> tuple[str, float] | None:
        """The change that best explains the move: largest in the move's direction; None
        when nothing changed by as much as the table shows (three decimals)."""
        changes = [change for change in self.deltas() if abs(change[1]) >= NOTICEABLE]
        if not changes:
            return None
        delta = self.score_delta or 0.0
        if delta:
            aligned = [c for c in changes if c[1] * delta > 0]
            changes = aligned or changes
        return max(changes, key=lambda change: abs(change[1]))


def compare(a: Sequence[RecallResult], b: Sequence[RecallResult]) -> list[Movement]:
    """B's results in B's order with their A counterparts, then the ones B dropped."""
    by_id_a = {result.memory.id: result for result in a}
    ids_b = {result.memory.id for result in b}
    moved = [Movement(by_id_a.get(result.memory.id), result) for result in b]
    dropped = [Movement(result, None) for result in a if result.memory.id not in ids_b]
    return moved + dropped


def movement_content(movement: Movement) -> Content:
    """The detail for one compared memory: ranks, score change, and every delta."""
    a, b = movement.a, movement.b
    rank_a = f"#{a.rank}" if a else "—"
    rank_b = f"#{b.rank}" if b else "—"
    lines: list[Content] = [
        Content.assemble(
            (f"A {rank_a} → B {rank_b}  ", "bold"), (movement.label, label_style(movement.label))
        ),
        memory_header(movement.memory),
        Content(""),
    ]
    delta = movement.score_delta
    if delta is None:
        side = "B" if b else "A"
        lines.append(
            Content.styled(f"only in ranking {side}: no contribution delta", "$text-muted")
        )
        return Content("\n").join(lines)
    assert a is not None and b is not None
    lines.append(Content(f"score {a.score:.4f} → {b.score:.4f} ({delta:+.4f})"))
    lines.append(Content.styled(f"{'change':<22}{'A':>8}{'B':>8}{'B − A':>9}", "$text-muted"))
    cause = movement.cause()
    for name, change in movement.deltas():
        key = _SIGNAL_BY_LABEL.get(name)
        if key is None:  # a penalty: its change in cost, no per-side contribution
            columns, colour = f"{'':>16}{change:>+9.4f}", "$penalty-conflict"
        else:
            before = a.breakdown.signals[key].contribution
            after = b.breakdown.signals[key].contribution
            columns, colour = (
                f"{before:>8.4f}{after:>8.4f}{change:>+9.4f}",
                f"${signal_variable(key)}",
            )
        style = f"bold {colour}" if cause and cause[0] == name else colour
        lines.append(Content.assemble((f"{name:<22}", style), columns))
    return Content("\n").join(lines)


_SIGNAL_BY_LABEL = {signal_label(name): name for name in SIGNAL_NAMES}


def label_style(label: str) -> str:
    """Movement colours: ↑ $rank-up, ↓ and dropped $rank-down, new $rank-new."""
    if label.startswith("↑"):
        return "bold $rank-up"
    if label.startswith("↓") or label == "dropped":
        return "bold $rank-down"
    if label == "new":
        return "bold $rank-new"
    return "$text-muted"
