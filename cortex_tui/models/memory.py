"""A memory, its entities and relations, and what a write proposes and answers."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import (
    Field,
)

from cortex_tui.models.base import (
    ConflictStatus,
    EntityType,
    MemoryStatus,
    MemoryType,
    Scope,
    UtcDatetime,
    _Model,
    new_id,
)


class WriteAction(StrEnum):
    CREATED = "created"
    DUPLICATE = "duplicate"
    REINFORCED = "reinforced"
    SUPERSEDED = "superseded"
    CONFLICT = "conflict"
    REDACTED = "redacted"
    """Not an outcome of the write path: the privacy step's record of what it removed."""


WriteLabel = Literal["duplicate", "reinforce", "update", "contradiction", "new"]
"""What a new statement should become against the memory it relates to: the classes a
labelled pair carries (eval, the write path's calibration)."""
WRITE_LABELS: tuple[WriteLabel, ...] = ("duplicate", "reinforce", "update", "contradiction", "new")
FOLDED_LABELS: frozenset[WriteLabel] = frozenset({"duplicate", "reinforce"})
"""Labels that fold the new statement into the old memory: folding a pair labelled
anything else loses a claim, the one error the write path must never make."""


RULES_JUDGE = "rules"
"""The offline judge: statement structure plus embedding similarity."""
PRIVACY_JUDGE = "privacy"
"""Who records a redaction: the privacy step, before any judge saw the text."""


def judged_by(judge: str) -> str:
    """ " [model]" after a reason a pair model or an LLM gave; nothing for the rules'."""
    return "" if judge == RULES_JUDGE else f" [{judge}]"


class Decision(_Model):
    """One call the write path made about a memory, and why.

    Stored on the memory it shaped, so the reason travels with it (export, backup, the
    service) and a person curating memory reads *why* next to *what*: on a new version
    the update that made it, on a conflict member the contradiction that grouped it, on
    a memory that absorbed a repeat or a paraphrase the statement it absorbed.
    """

    action: WriteAction
    reason: str = Field(min_length=1)
    judge: str = Field(
        default=RULES_JUDGE,
        description="who decided: 'rules', or the pair model or LLM that settled a close call",
    )
    related_id: str | None = Field(
        default=None,
        description="the memory it was judged against (none for a statement folded in)",
    )
    statement: str | None = Field(
        default=None, description="the statement folded into this memory (repeats, paraphrases)"
    )
    at: UtcDatetime

    def describe(self) -> str:
        """One line for every surface: the action, the reason, and who decided."""
        return f"{self.action.value}: {self.reason}{judged_by(self.judge)}"


MAX_DECISIONS = 8
"""Decisions kept per memory: the first (how it came to be) and the newest after it, so a
fact restated every day does not grow without bound."""


def with_decision(decisions: list[Decision], decision: Decision) -> list[Decision]:
    """`decisions` plus `decision`, trimmed to `MAX_DECISIONS` (the first one stays)."""
    grown = [*decisions, decision]
    if len(grown) <= MAX_DECISIONS:
        return grown
    return [grown[0], *grown[len(grown) - MAX_DECISIONS + 1 :]]


class Memory(_Model):
    """One remembered statement and everything needed to rank, version and curate it."""

    id: str = Field(default_factory=new_id)
    content: str = Field(min_length=1)
    type: MemoryType = MemoryType.FACT
    scope: Scope = Scope.PERMANENT
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    tags: list[str] = Field(default_factory=list)
    project: str | None = None
    session_id: str | None = None
    turn: int | None = Field(
        default=None,
        ge=0,
        description="position of the conversation turn it came from within its session",
    )
    speaker: str | None = Field(default=None, description="who said it, when it was said")
    said_in: list[str] = Field(
        default_factory=list,
        description="the archived messages of the turn it was taken from (`sessions`)",
    )
    source: str = "remember"
    author: str | None = Field(
        default=None,
        description="the team member (tenant) who wrote this version of a team memory",
    )
    created_at: UtcDatetime
    updated_at: UtcDatetime
    last_accessed: UtcDatetime | None = None
    access_count: int = Field(default=0, ge=0)
    reinforced_count: int = Field(default=0, ge=0)
    supersedes_id: str | None = None
    superseded_by_id: str | None = None
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    conflict_group_id: str | None = None
    conflict_status: ConflictStatus = ConflictStatus.NONE
    contradicts_ids: list[str] = Field(default_factory=list)
    entity_ids: list[str] = Field(default_factory=list)
    episode_start: UtcDatetime | None = None
    episode_end: UtcDatetime | None = None
    ttl_hours: float | None = Field(default=None, gt=0)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    status: MemoryStatus = MemoryStatus.ACTIVE
    decisions: list[Decision] = Field(
        default_factory=list, description="the write path's calls about it, oldest first"
    )

    @property
    def is_current(self) -> bool:
        """A current version is the one recall serves by default."""
        return self.valid_to is None and self.status is MemoryStatus.ACTIVE

    @property
    def short_id(self) -> str:
        return self.id[:8]

    def last_decision(self, *actions: WriteAction) -> Decision | None:
        """The newest decision of one of `actions` (of any action when none is named)."""
        return next(
            (d for d in reversed(self.decisions) if not actions or d.action in actions), None
        )


class Entity(_Model):
    """A named thing memories talk about; keyed by its normalised name plus aliases."""

    id: str = Field(default_factory=new_id)
    name: str = Field(min_length=1)
    type: EntityType = EntityType.OTHER
    aliases: list[str] = Field(default_factory=list)
    created_at: UtcDatetime
    memory_ids: list[str] = Field(default_factory=list)


class Relation(_Model):
    """A dated edge between two entities, e.g. (Priya, leads, atlas)."""

    id: str = Field(default_factory=new_id)
    subject_id: str
    predicate: str = Field(min_length=1)
    object_id: str
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None = None
    source_memory_id: str | None = None
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)


class MemoryDraft(_Model):
    """A memory as a caller proposes it; the engine fills ids, clocks and defaults.

    Optional history fields (created_at, last_accessed, counts) let imports and evals
    bring memories that were made elsewhere at another time.
    """

    content: str
    type: MemoryType | None = None
    scope: Scope | None = None
    project: str | None = None
    tags: list[str] = Field(default_factory=list)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    session_id: str | None = None
    turn: int | None = Field(default=None, ge=0)
    speaker: str | None = None
    said_in: list[str] = Field(default_factory=list)
    source: str = "remember"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    ttl_hours: float | None = Field(default=None, gt=0)
    created_at: UtcDatetime | None = None
    valid_from: UtcDatetime | None = None
    last_accessed: UtcDatetime | None = None
    access_count: int = Field(default=0, ge=0)
    reinforced_count: int = Field(default=0, ge=0)
    episode_start: UtcDatetime | None = None
    episode_end: UtcDatetime | None = None
    corrects: bool = False
    """A correction by the person (`Candidate.corrects`): not stored, it tells the write
    path that the memory it contradicts is the old value."""


class WriteResult(_Model):
    """What the write path did with a draft: `memory` is the one that now holds it,
    `related` the existing memory it folded into, superseded or conflicts with."""

    action: WriteAction
    memory: Memory
    related: Memory | None = None
    reason: str = Field(default="", description="why the write path decided this")
    judge: str = Field(default=RULES_JUDGE, description="who decided (see `Decision.judge`)")
    close_call: str | None = Field(
        default=None,
        description="why the rules alone were unsure, when they were (a pair model or an "
        "LLM, when configured, is asked then)",
    )
    renamed: tuple[str, str] | None = Field(
        default=None, description="(old name, new name) when the update renames something"
    )

    def why(self) -> str:
        """The reason, and who gave it when it was not the rules."""
        return f"{self.reason}{judged_by(self.judge)}"


class Stats(_Model):
    total: int
    current: int
    superseded: int
    deleted: int
    active_conflicts: int
    by_type: dict[str, int]
    by_scope: dict[str, int]
    by_project: dict[str, int]
    by_status: dict[str, int]
    entities: int
    relations: int
    store: str
    embedder: str
    dimension: int
    top_entities: dict[str, int] = Field(
        default_factory=dict, description="most mentioned entity names -> mentions"
    )


class MemoryPage(_Model):
    memories: list[Memory]
    next_offset: str | None = None
    total: int


class ImportReport(_Model):
    memories: int
    entities: int
    relations: int
    skipped: list[str] = Field(default_factory=list)


class CandidateEntity(_Model):
    name: str = Field(min_length=1)
    type: EntityType = EntityType.OTHER


class CandidateRelation(_Model):
    """(subject, predicate, object) named by entity names, as extraction found them."""

    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    valid_at: UtcDatetime | None = None


class Candidate(_Model):
    """A memory proposed by extraction, before the write path decides what it becomes."""

    content: str = Field(min_length=1)
    type: MemoryType | None = None
    scope: Scope | None = None
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    tags: list[str] = Field(default_factory=list)
    entities: list[CandidateEntity] = Field(default_factory=list)
    relations: list[CandidateRelation] = Field(default_factory=list)
    valid_at: UtcDatetime | None = None
    corrects: bool = False
    """The person set right something said or done before ("No, use pnpm"): the write
    path makes it an update of what it contradicts, never a conflict beside it."""
