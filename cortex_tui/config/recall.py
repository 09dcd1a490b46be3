"""`[recall]`: every weight and constant of the recall formula, so users can tune
ranking without touching code: the priors' weights and multipliers, fusion, the gate."""

from __future__ import annotations

import warnings
from typing import Any, Literal

from pydantic import (
    Field,
    model_validator,
)

from cortex_tui.config.base import RelevanceFloor, Section

MAX_PRIOR_WEIGHT = 0.5
"""A prior lifts a memory by at most this share of its relevance: priors refine, never lead."""


class LegacyWeightsWarning(UserWarning):
    """A weight table written for the additive score of earlier versions was mapped."""


class RecallWeights(Section):
    """How much each prior may lift a memory: factor = 1 + weight × signal (0..1).

    Relevance has no weight: it leads, and the priors multiply it by bounded factors, so
    a prior that is equal across the candidates changes no order. Defaults: see
    `recall/scoring.py` for the measurement behind them.
    """

    recency: float = Field(
        default=0.08,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description=(
            "how much being recent lifts a memory (signal halves every "
            "recall.recency_half_life_hours)"
        ),
    )
    frequency: float = Field(
        default=0.05,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much being recalled often lifts a memory",
    )
    type: float = Field(
        default=0.1,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description=(
            "how much the memory's type lifts it (recall.type_multipliers; a type the query names "
            "reads 1)"
        ),
    )
    scope: float = Field(
        default=0.08,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much the memory's scope lifts it (recall.scope_multipliers)",
    )
    confidence: float = Field(
        default=0.07,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much the memory's confidence lifts it",
    )
    reinforcement: float = Field(
        default=0.07,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much being said again lifts a memory",
    )
    tag_affinity: float = Field(
        default=0.05,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much sharing the request's tags lifts a memory",
    )
    graph_proximity: float = Field(
        default=0.05,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much being near an entity or speaker the query names lifts a memory",
    )
    period: float = Field(
        default=0.35,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description="how much being dated in a period the query names lifts a memory",
    )
    # What the person asking said, for a question in the first person (docs/measurements.md,
    # "Recall on LongMemEval"): their own statements are the facts about them.
    asker: float = Field(
        default=0.35,
        ge=0,
        le=MAX_PRIOR_WEIGHT,
        description=(
            "how much having been said by the person asking lifts a memory, for a question in the "
            "first person"
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _from_additive_form(cls, data: Any) -> Any:
        """Read a table that still has `similarity` (the additive score's weights).

        There a prior's pull against relevance was its weight over similarity's; here it
        is the factor's weight, so each prior becomes weight ÷ similarity, capped at
        `MAX_PRIOR_WEIGHT`. Saving the profile again writes the new form.
        """
        if not isinstance(data, dict) or "similarity" not in data:
            return data
        legacy = dict(data)
        similarity = _number(legacy.pop("similarity"))
        if similarity is None:
            return data  # validation then names the key that is wrong
        mapped = {}
        for name, value in legacy.items():
            weight = _number(value)
            mapped[name] = value if weight is None else _relative(weight, similarity)
        warnings.warn(
            LegacyWeightsWarning(
                "a weight table sets 'similarity', a key of the old additive score; its "
                "priors were read as weight ÷ similarity (at most "
                f"{MAX_PRIOR_WEIGHT}): {_describe(mapped)}. Save the profile again "
                "(TUI: e, then Save) to store the new form"
            ),
            stacklevel=2,
        )
        return mapped


def _number(value: object) -> float | None:
    """A weight as TOML (a number) or the environment (text) gives it; None if neither."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _relative(weight: float, similarity: float) -> float:
    if weight <= 0:
        return weight
    if similarity <= 0:
        return MAX_PRIOR_WEIGHT
    return min(MAX_PRIOR_WEIGHT, round(weight / similarity, 4))


def _describe(weights: dict[str, Any]) -> str:
    return ", ".join(f"{name} {value}" for name, value in weights.items()) or "all defaults"


class TypeMultipliers(Section):
    rule: float = Field(
        default=1.5,
        gt=0,
        description="the type prior's value for a rule (divided by the largest of these)",
    )
    procedure: float = Field(default=1.3, gt=0, description="the same for a procedure")
    fact: float = Field(default=1.0, gt=0, description="the same for a fact")
    episode: float = Field(default=0.8, gt=0, description="the same for an episode")
    preference: float = Field(default=0.7, gt=0, description="the same for a preference")


class ScopeMultipliers(Section):
    permanent: float = Field(
        default=1.0,
        gt=0,
        description="the scope prior's value for a global memory (divided by the largest of these)",
    )
    project_match: float = Field(
        default=1.5, gt=0, description="the same for a memory of the project asked about"
    )
    project_other: float = Field(
        default=1.0, gt=0, description="the same for a memory of another project"
    )
    session: float = Field(default=0.8, gt=0, description="the same for a session memory")
    ttl: float = Field(default=0.8, gt=0, description="the same for a memory with an expiry time")
    team: float = Field(
        default=1.0, gt=0, description="a team's shared memory with no project (team server)"
    )


FusionMode = Literal["weighted", "rrf", "dense"]
Normalisation = Literal["raw", "max", "minmax", "zscore", "rank"]


class RecallConfig(Section):
    weights: RecallWeights = Field(default_factory=RecallWeights)
    type_multipliers: TypeMultipliers = Field(default_factory=TypeMultipliers)
    scope_multipliers: ScopeMultipliers = Field(default_factory=ScopeMultipliers)
    dense_candidates: int = Field(
        default=50, ge=1, le=1000, description="candidates the dense (vector) channel finds"
    )
    lexical_candidates: int = Field(
        default=50,
        ge=0,
        le=1000,
        description="candidates the lexical (BM25) channel finds; 0: no lexical channel",
    )
    graph_candidates: int = Field(
        default=50,
        ge=0,
        le=1000,
        description=(
            "candidates the graph channel finds (what a named speaker said, what mentions a named "
            "entity); 0: none"
        ),
    )
    graph_max_hops: int = Field(
        default=2,
        ge=0,
        le=4,
        description="hops from an entity the query names that still count as near",
    )
    graph_match_threshold: float = Field(
        default=88.0,
        ge=0,
        le=100,
        description=(
            "rapidfuzz score (0-100) at which a word of the query names an entity or a speaker"
        ),
    )
    # A query in the first person ("what degree did I …") names the person asking: the
    # turns a transcript records as the user's are 1 hop away, as a named speaker's are.
    first_person_speaker: bool = Field(
        default=True,
        description=(
            "a question in the first person names the person asking: the user's turns join the "
            "candidates"
        ),
    )
    fusion: FusionMode = Field(
        default="weighted",
        description=(
            "how the channels are fused: weighted (relevance), rrf (reciprocal rank) or dense alone"
        ),
    )
    # Chosen with `cortex-tui eval` on LoCoMo's development conversations and the shared
    # development sets (docs/measurements.md, "Recall on LoCoMo"). Both channels scaled by
    # their best hit, the lexical one times the share of the query's terms the memory contains:
    # R@5/R@10 60.2/69.4, MRR 0.525, shared top-1 0.933 (λ 0.55–0.7: R@10 68.7–69.5).
    # Raw cosine (0.2–0.6 for MiniLM) next to BM25/max (1.0 for the best lexical hit,
    # however weak) let a lone shared word beat the memory that answers: at λ 0.3 that
    # gave R@10 69.1 but shared top-1 0.733. Coverage squared: R@10 62.6–68.1;
    # min–max 67.3, z-score 64.3, rank 61.5; 100 candidates per channel changed nothing.
    # λ weighs a term that is often half its BM25 (coverage), so 0.6 is less than it looks.
    lexical_weight: float = Field(
        default=0.6,
        ge=0,
        le=1,
        description="λ: the lexical channel's share of relevance (the dense channel has 1 − λ)",
    )
    dense_norm: Normalisation = Field(
        default="max",
        description="how cosines are scaled before fusion (max: divided by the best hit's)",
    )
    lexical_norm: Normalisation = Field(
        default="max",
        description=(
            "how BM25 scores are scaled before fusion (raw is refused: BM25 has no upper bound)"
        ),
    )
    lexical_fill: bool = Field(
        default=True,
        description="give every candidate its BM25 score, not only the lexical channel's own",
    )
    lexical_coverage_power: float = Field(
        default=1.0,
        ge=0,
        le=4,
        description="lexical score × (share of the query's terms the memory holds) to this power",
    )
    # Queries naming a kind of memory ("rules for …") favour that kind (recall/type_cues.py).
    query_type_cues: bool = Field(
        default=True,
        description='a query naming a kind of memory ("rules for …") favours that kind',
    )
    rrf_k: int = Field(
        default=60, ge=1, description="the k of reciprocal rank fusion (fusion = rrf)"
    )
    recency_half_life_hours: float = Field(
        default=168.0,
        gt=0,
        description=(
            "hours after its last use (or its making) at which a memory's recency signal is half"
        ),
    )
    frequency_log_divisor: float = Field(
        default=10.0,
        gt=0,
        description="frequency signal = log2(1 + times recalled) / this, at most 1",
    )
    reinforcement_log_divisor: float = Field(
        default=5.0,
        gt=0,
        description="reinforcement signal = log2(1 + times said again) / this, at most 1",
    )
    unknown_confidence: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="the confidence read for a memory whose confidence is unknown",
    )
    unknown_confidence_below: float = Field(
        default=0.01, ge=0, le=1, description="a confidence below this counts as unknown"
    )
    supersession_penalty: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="score × this for an old version whose successor is also a candidate",
    )
    conflict_penalty: float = Field(
        default=0.8, ge=0, le=1, description="score × this for a memory in an open conflict"
    )
    default_limit: int = Field(
        default=10, ge=1, le=1000, description="results a recall returns when it names no limit"
    )
    budget_tokens: int = Field(
        default=2000, ge=50, description="tokens the context block given to an agent may take"
    )
    chars_per_token: float = Field(
        default=4.0, gt=0, description="characters counted as one token for that budget"
    )
    # The dense channel reads a memory of a conversation by the better of its own cosine
    # and this × the cosine of its context vector (itself plus the turn before it); 0
    # reads its own alone.
    context_weight: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description=(
            "a memory of a conversation is read by the better of its own cosine and this × its "
            "context vector's; 0: its own alone"
        ),
    )
    # Memories searched by their context vectors; 0 reads the context of the candidates
    # the other channels found, without a search of its own. On LoCoMo's development
    # conversations 0, 20 and 50 rank alike (R@10 75.4), and the search costs a second
    # vector index walk (+8 ms at 100k memories).
    context_candidates: int = Field(
        default=0,
        ge=0,
        le=1000,
        description=(
            "memories searched by their context vectors; 0: only the other channels' candidates are"
            " read by them"
        ),
    )
    # The dense channel also reads a memory of several sentences by this × the cosine of
    # its best-matching sentence (`[parts]`); 0 reads the whole text alone.
    part_weight: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description=(
            "a memory of several sentences is also read by this × its best sentence's cosine; 0: "
            "the whole text alone"
        ),
    )
    rerank_spread: float = Field(
        default=0.15,
        ge=0,
        description=(
            "the LLM (llm.provider) re-ranks the top results only when their scores lie within this"
            " of each other"
        ),
    )
    rerank_budget_ms_hook: int = Field(
        default=100, ge=0, description="longest a hook's recall waits for that re-rank (ms)"
    )
    rerank_budget_ms_interactive: int = Field(
        default=3000, ge=0, description="longest any other recall waits for it (ms)"
    )
    # The relevance gate (recall/gate.py): a hook's prompt gets memories only when they
    # bear on it. The floors are fitted with the gate's weights (recall/data/gate.json);
    # set them here to give more (lower) or less (higher).
    gate_floor: RelevanceFloor | None = Field(
        default=None,
        description="the relevance (0–1) a prompt's best memory needs for the prompt to get "
        "any (none: the fitted floor)",
    )
    gate_companion_floor: RelevanceFloor | None = Field(
        default=None,
        description="the relevance other memories need to join it (none: the fitted one; "
        "never above gate_floor)",
    )

    @model_validator(mode="after")
    def _lexical_needs_a_scale(self) -> RecallConfig:
        if self.lexical_norm == "raw":
            raise ValueError("lexical_norm cannot be raw: BM25 has no upper bound")
        return self
