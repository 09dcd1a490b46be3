"""What recall answers: each result with the score breakdown that placed it, and "why not?"."""

from __future__ import annotations

from typing import Any

from pydantic import (
    Field,
    model_validator,
)

from cortex_tui.models.base import MemoryType, UtcDatetime, _Model
from cortex_tui.models.memory import Memory


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
        # A quote's evidence also weighs its message's length (recall/channels/archive.py).
        length = f", length {parts['length']:+.2f}" if "length" in parts else ""
        return (
            f"{self.relevance:.3f} = logistic({cosine} {parts.get('cosine', 0.0):+.2f}, "
            f"words {self.lexical:.2f} {parts.get('words', 0.0):+.2f}, {entity} "
            f"{parts.get('entity', 0.0):+.2f}{length}, base {parts.get('base', 0.0):+.2f})"
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


class Quote(_Model):
    """A sentence of the turn archive that bears on a query (`cortex_tui/archive/`): what
    was said, by whom, when and in which session. Never a memory: it is given after the
    memories, in the budget they leave."""

    id: str = Field(description="the archived message it comes from")
    text: str = Field(description="the sentence quoted (cut to the configured length)")
    speaker: str | None = Field(description="who said it: user or assistant")
    session_id: str | None = None
    turn: int | None = Field(default=None, description="its turn's position in the session")
    project: str | None = None
    said_at: UtcDatetime
    rank: int = Field(ge=1, description="its place among the archive's candidates")
    gate: GateEvidence = Field(description="how much it bears on the query (recall/gate.py)")

    @property
    def short_id(self) -> str:
        return self.id[:8]


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
    quotes: list[Quote] = Field(
        default_factory=list,
        description="sentences of the turn archive that bear on the query, given after "
        "the memories (only when the request includes the archive)",
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
