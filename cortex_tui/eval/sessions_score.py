"""Scoring a replayed session against its labels: what capture kept, what it missed, and
what it stored that no label holds.

Recall is over the core labels (a label is found when a current memory matches it,
whichever session of the repository stored it); precision is the share of the memories
the session stored that match any label of it, core or optional. Both are pooled over
sessions for a part of the corpus, so a long session weighs more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cortex_tui.eval.claude_replay import Replayed
from cortex_tui.eval.sessions_dataset import LABEL_TYPES, Session, SessionLabel
from cortex_tui.models import Memory, MemoryStatus


@dataclass
class MissedLabel:
    label: SessionLabel
    why: str


@dataclass
class Unmatched:
    memory: Memory
    why: str


@dataclass
class SessionScore:
    session: str
    split: str
    prompts: int
    core: int
    core_found: int
    optional: int
    optional_found: int
    stored: int
    matched: int
    seconds: float
    by_label_type: dict[str, tuple[int, int]]
    """core labels of each type: (found, total)."""
    by_memory_type: dict[str, tuple[int, int]]
    """stored memories of each type: (matching a label, stored)."""
    missed: list[MissedLabel] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    hook_failures: list[str] = field(default_factory=list)


@dataclass
class Totals:
    """A part of the corpus (or all of it), pooled."""

    sessions: int = 0
    prompts: int = 0
    core: int = 0
    core_found: int = 0
    optional: int = 0
    optional_found: int = 0
    stored: int = 0
    matched: int = 0
    by_label_type: Counter[str] = field(default_factory=Counter)
    by_label_type_found: Counter[str] = field(default_factory=Counter)
    by_memory_type: Counter[str] = field(default_factory=Counter)
    by_memory_type_matched: Counter[str] = field(default_factory=Counter)

    def add(self, score: SessionScore) -> None:
        self.sessions += 1
        self.prompts += score.prompts
        self.core += score.core
        self.core_found += score.core_found
        self.optional += score.optional
        self.optional_found += score.optional_found
        self.stored += score.stored
        self.matched += score.matched
        for kind, (found, total) in score.by_label_type.items():
            self.by_label_type_found[kind] += found
            self.by_label_type[kind] += total
        for kind, (matched, stored) in score.by_memory_type.items():
            self.by_memory_type_matched[kind] += matched
            self.by_memory_type[kind] += stored

    @property
    def recall(self) -> float:
        return self.core_found / self.core if self.core else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.stored if self.stored else 0.0

    @property
    def per_prompt(self) -> float:
        return self.stored / self.prompts if self.prompts else 0.0


def score_session(session: Session, replayed: Replayed) -> SessionScore:
    labels = session.labels.labels
    found = {
        label.id for label in labels if any(label.matches(m.content) for m in replayed.current)
    }
    matching = [m for m in replayed.own if any(label.matches(m.content) for label in labels)]
    core = [label for label in labels if label.core]
    optional = [label for label in labels if not label.core]
    by_label_type: dict[str, tuple[int, int]] = {
        kind: (
            sum(1 for label in core if label.type == kind and label.id in found),
            sum(1 for label in core if label.type == kind),
        )
        for kind in LABEL_TYPES
        if any(label.type == kind for label in core)
    }
    matched_ids = {m.id for m in matching}
    stored_types = Counter(m.type.value for m in replayed.own)
    matched_types = Counter(m.type.value for m in matching)
    return SessionScore(
        session=session.name,
        split=session.source.split,
        prompts=replayed.prompts,
        core=len(core),
        core_found=sum(1 for label in core if label.id in found),
        optional=len(optional),
        optional_found=sum(1 for label in optional if label.id in found),
        stored=len(replayed.own),
        matched=len(matching),
        seconds=replayed.seconds,
        by_label_type=by_label_type,
        by_memory_type={k: (matched_types[k], n) for k, n in sorted(stored_types.items())},
        missed=[
            MissedLabel(label, where_it_went(label, replayed.current, replayed.versions))
            for label in core
            if label.id not in found
        ],
        unmatched=[
            Unmatched(m, _why_stored(m))
            for m in sorted(replayed.own, key=lambda m: (m.turn or 0, m.created_at))
            if m.id not in matched_ids
        ],
        hook_failures=replayed.hook_failures,
    )


def where_it_went(label: SessionLabel, current: list[Memory], versions: list[Memory]) -> str:
    """What the write path did with the statement, as far as the store shows it: a
    version that ended, a statement folded into another memory, or nothing at all."""
    for memory in current:
        for decision in memory.decisions:
            if decision.statement and label.matches(decision.statement):
                return f"folded into {memory.short_id} ({decision.describe()}): {memory.content}"
    for version in versions:
        if label.matches(version.content):
            if version.status is not MemoryStatus.ACTIVE:
                return f"stored as {version.short_id}, then {version.status.value}"
            if version.superseded_by_id:
                return (
                    f"stored as {version.short_id}, then superseded by "
                    f"{version.superseded_by_id[:8]}"
                )
    return f"not stored (said in turn {label.turn})"


def _why_stored(memory: Memory) -> str:
    first = memory.decisions[0].describe() if memory.decisions else "stored: nothing related"
    return f"{first} · turn {memory.turn if memory.turn is not None else '?'}"
