"""The data model shared by every layer and carried unchanged over the wire.

Times are always timezone-aware UTC: naive datetimes are rejected at the boundary rather
than guessed, because a memory's age drives its recency score and its validity window.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)


def _to_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]


def new_id() -> str:
    return str(uuid.uuid4())


class MemoryType(StrEnum):
    RULE = "rule"
    PROCEDURE = "procedure"
    FACT = "fact"
    EPISODE = "episode"
    PREFERENCE = "preference"


class Scope(StrEnum):
    PERMANENT = "permanent"
    PROJECT = "project"
    SESSION = "session"
    TTL = "ttl"
    TEAM = "team"
    """Shared with the tenant's team on a team server (`serve --tenants`)."""


class ConflictStatus(StrEnum):
    NONE = "none"
    ACTIVE = "active"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    DELETED = "deleted"


class EntityType(StrEnum):
    PERSON = "person"
    PROJECT = "project"
    SYSTEM = "system"
    CONCEPT = "concept"
    TOOL = "tool"
    PLACE = "place"
    OTHER = "other"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


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


class SignalScore(_Model):
    """One signal of the score and the points it adds.

    For relevance, `contribution` is the relevance itself. For a prior, `factor =
    1 + weight × raw` and `contribution` is its share of what the priors add together,
    so that relevance plus every prior's contribution is exactly `adjusted`.
    """

    raw: float
    weight: float
    factor: float = 1.0
    contribution: float


class ChannelHit(_Model):
    """Where one retrieval channel placed a candidate (rank is 1-based)."""

    rank: int = Field(ge=1)
    score: float


ASKER_ROLES = frozenset({"user", "human"})
"""How transcripts record the person at the keyboard (LongMemEval, chat exports): the
speaker a question in the first person ("what degree did I …") names."""
ANSWERER_ROLES = frozenset({"assistant", "ai", "model"})
"""How transcripts record the agent: the speaker "what you recommended" names."""


class GateEvidence(_Model):
    """How much a memory bears on the query, on absolute evidence (`recall/gate.py`):
    each part's share of the evidence, and the relevance they make (0–1)."""

    relevance: float = Field(description="the evidence as a share: 0 bears on nothing, 1 surely")
    cosine: float = Field(description="the cosine the dense channel read, this model's")
    calibrated_cosine: float = Field(description="that cosine on the reference model's scale")
    lexical: float = Field(description="log(1 + BM25): words the two share, the rarer the more")
    entity: bool = Field(description="the memory names an entity or speaker the query names")
    parts: dict[str, float] = Field(
        description="what each piece of evidence adds to the log-odds (cosine, words, entity, base)"
    )

    def formula(self) -> str:
        """The relevance number by number: each piece of evidence and what it adds to the
        log-odds, shared by every surface so they state the same sum."""
        parts = self.parts
        cosine = f"cosine {self.cosine:.3f}"
        if abs(self.calibrated_cosine - self.cosine) > 5e-4:
            cosine += f" (reads as {self.calibrated_cosine:.3f})"
        entity = "a name in common" if self.entity else "no name in common"
        return (
            f"{self.relevance:.3f} = logistic({cosine} {parts.get('cosine', 0.0):+.2f}, "
            f"words {self.lexical:.2f} {parts.get('words', 0.0):+.2f}, {entity} "
            f"{parts.get('entity', 0.0):+.2f}, base {parts.get('base', 0.0):+.2f})"
        )

    def describe(self) -> str:
        """The evidence in words: "cosine 0.22, no shared words, no name in common"."""
        words = f"shared words {self.lexical:.2f}" if self.lexical > 0 else "no shared words"
        entity = "a name in common" if self.entity else "no name in common"
        return f"cosine {self.cosine:.2f}, {words}, {entity}"


class HeldBack(_Model):
    """A ranked memory the relevance gate kept out of a block, and why."""

    id: str
    rank: int = Field(ge=1)
    type: MemoryType
    text: str = Field(description="its first 160 characters")
    relevance: float
    floor: float = Field(description="the relevance it needed")
    reason: str


LEGACY_CHANNEL_FIELDS = frozenset({"dense", "lexical", "graph"})
"""The breakdown's fields for the channels before they were keyed by name."""


class ScoreBreakdown(_Model):
    """Everything that produced a result's final score, so it can be explained exactly.

    `adjusted = relevance × Π prior factors` is the sum of the signals' contributions, and
    `final == adjusted × supersession_penalty × conflict_penalty`. With weighted fusion,
    `relevance = (1 − lexical_weight) × dense_scaled + lexical_weight × lexical_scaled`
    and `lexical_scaled = lexical_bm25_scaled × lexical_coverage` (coverage is measured
    only where BM25 found a term).
    """

    @model_validator(mode="before")
    @classmethod
    def _channels_by_name(cls, data: Any) -> Any:
        """A breakdown recorded before the channels were keyed by name (the record of what
        a turn was given keeps them for `injections.keep_days`) had one field for each
        of the three channels there were."""
        if not isinstance(data, dict) or not LEGACY_CHANNEL_FIELDS & data.keys():
            return data
        data = dict(data)
        legacy = {name: data.pop(name, None) for name in ("dense", "lexical", "graph")}
        data["channels"] = {**legacy, **data.get("channels", {})}
        return data

    signals: dict[str, SignalScore]
    adjusted: float
    supersession_penalty: float = 1.0
    conflict_penalty: float = 1.0
    final: float
    cosine: float
    context_cosine: float | None = Field(
        default=None,
        description="cosine of the memory read with the turn before it in its session",
    )
    matched_context: bool = Field(
        default=False, description="the dense channel used context_cosine, not cosine"
    )
    part_cosine: float | None = Field(
        default=None,
        description="cosine of the memory's best-matching sentence, when it has several",
    )
    matched_part: bool = Field(
        default=False, description="the dense channel used part_cosine, not cosine"
    )
    matched_sentence: str | None = Field(
        default=None, description="the sentence behind part_cosine, when the channel used it"
    )
    lexical_score: float | None = None
    dense_scaled: float | None = None
    lexical_scaled: float | None = None
    lexical_bm25_scaled: float | None = None
    lexical_coverage: float | None = Field(
        default=None,
        description="share of the query's terms the memory contains, to the configured power",
    )
    lexical_weight: float | None = None
    channels: dict[str, ChannelHit | None] = Field(
        default_factory=dict,
        description="each recall channel that ran (dense, lexical, graph), in the order "
        "they run: where it ranked the memory, or null when it did not find it",
    )
    graph_hops: int | None = None
    graph_speaker: str | None = Field(
        default=None,
        description="who said the memory, when the query names them: graph proximity 1",
    )
    fusion: str = "weighted"
    query_types: list[MemoryType] = Field(
        default_factory=list,
        description="memory types the query names: the type prior then favours them alone",
    )
    query_period: str | None = Field(
        default=None,
        description="the period the query names ('in May 2023', 'last week') and its dates",
    )
    gate: GateEvidence | None = Field(
        default=None, description="how much it bears on the query, for the relevance gate"
    )

    def fusion_formula(self) -> str | None:
        """How weighted fusion made the relevance, number by number; None for the other
        fusion modes. Shared by every surface so they state the same formula."""
        dense, lexical, share = self.dense_scaled, self.lexical_scaled, self.lexical_weight
        if dense is None or lexical is None or share is None:
            return None
        return f"= {1.0 - share:.2f} × dense {dense:.3f} + {share:.2f} × lexical {lexical:.3f}"

    def lexical_formula(self) -> str | None:
        """The lexical term: BM25 on its channel's scale times the query coverage."""
        bm25, coverage = self.lexical_bm25_scaled, self.lexical_coverage
        if bm25 is None or coverage is None or self.lexical_scaled is None:
            return None
        return f"= BM25 {bm25:.3f} × coverage {coverage:.3f}"

    def dense_note(self) -> str | None:
        """Which text the dense channel matched, when the memory has a session context or
        several sentences."""
        if self.matched_part and self.part_cosine is not None:
            sentence = "" if self.matched_sentence is None else f": {self.matched_sentence!r}"
            return (
                f"matched by one of its sentences: cosine {self.part_cosine:.3f}"
                f" (whole text {self.cosine:.3f}){sentence}"
            )
        if self.context_cosine is None:
            return None
        if self.matched_context:
            return (
                f"matched with context of the previous turn: cosine {self.context_cosine:.3f}"
                f" (alone {self.cosine:.3f})"
            )
        return f"matched alone: cosine {self.cosine:.3f} (with context {self.context_cosine:.3f})"

    def graph_note(self) -> str | None:
        """How the graph reached the memory: through who said it, or what it mentions."""
        if self.graph_speaker in ASKER_ROLES:
            return f"said by the {self.graph_speaker}, whom a question in the first person names"
        if self.graph_speaker in ANSWERER_ROLES:
            return f"said by the {self.graph_speaker}, whom a question about what you said names"
        if self.graph_speaker is not None:
            return f"said by {self.graph_speaker}, whom the query names"
        if self.graph_hops == 1:
            return "mentions an entity the query names"
        if self.graph_hops:
            away = self.graph_hops - 1
            relations = "relation" if away == 1 else "relations"
            return f"mentions an entity {away} {relations} from one the query names"
        return None

    def period_note(self) -> str | None:
        """Which period the period prior favours, when the query names one."""
        if self.query_period is None:
            return None
        return f"the query names {self.query_period}: memories dated then get period 1"

    def type_prior_note(self) -> str | None:
        """Why the type prior reads 1 or 0 instead of the configured order, when it does."""
        if not self.query_types:
            return None
        named = ", ".join(kind.value for kind in self.query_types)
        return f"the query names {named}: those types get type 1, the others 0"


class RecallResult(_Model):
    memory: Memory
    rank: int = Field(ge=1)
    score: float
    breakdown: ScoreBreakdown
    conflicts_with: list[str] = Field(default_factory=list)
    reranked_from: int | None = Field(
        default=None, description="rank before the LLM re-ranked a close top-4"
    )


class RecallResponse(_Model):
    """A ranked answer plus the context block built from it within the token budget."""

    query: str
    results: list[RecallResult]
    context: str
    candidates: int
    elapsed_ms: float
    notices: list[str] = Field(
        default_factory=list, description="what the user should know about this store"
    )
    held_back: list[HeldBack] = Field(
        default_factory=list,
        description="results the relevance gate kept out (only when the request set a floor)",
    )


class Explanation(_Model):
    """Answer to "why not?": where a named memory stands for a query, or what excludes it."""

    query: str
    memory: Memory
    rank: int | None = None
    limit: int
    result: RecallResult | None = None
    excluded_by: str | None = None
    above: list[RecallResult] = Field(default_factory=list)


def utcnow() -> datetime:
    return datetime.now(UTC)


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
