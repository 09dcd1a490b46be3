"""What the write path keeps and how: `[write]` (its similarity bands and judge),
`[context]` and `[parts]` (the indexes written beside a memory), `[graph]`, `[lifecycle]`."""

from __future__ import annotations

from pathlib import Path

from pydantic import (
    Field,
)

from cortex_tui.config.base import Section


class WritePathConfig(Section):
    """Similarity bands of the write path (cosine to the nearest current memory)."""

    duplicate_threshold: float = Field(
        default=0.99, gt=0, le=1, description="a paraphrase this close is a duplicate"
    )
    related_threshold: float = Field(
        default=0.45, gt=0, le=1, description="neighbours below this are not judged at all"
    )
    restate_threshold: float = Field(
        default=0.60, gt=0, le=1, description="a paraphrase below this is a new memory"
    )
    elaborate_threshold: float = Field(
        default=0.85,
        gt=0,
        le=1,
        description="a restatement that names more than the old one reinforces from here",
    )
    change_threshold: float = Field(
        default=0.70,
        gt=0,
        le=1,
        description="an announced change with no value seen to change updates from here",
    )
    min_confidence: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="a captured statement less sure than this is not stored",
    )
    reinforce_step: float = Field(
        default=0.05, ge=0, le=1, description="confidence a memory gains each time it is said again"
    )
    neighbours: int = Field(
        default=5, ge=1, le=100, description="nearest current memories a new one is judged against"
    )
    unsure_margin: float = Field(
        default=0.08,
        ge=0,
        le=1,
        description="a softer verdict this close to its threshold is a close call",
    )
    llm_judge: bool = Field(
        default=True, description="send close calls to the configured LLM (llm.provider)"
    )
    judge_budget_ms: int = Field(
        default=3000,
        ge=0,
        description="longest a write waits for the LLM on one close call; then the rules decide",
    )
    judge_budget_ms_hook: int = Field(
        default=300,
        ge=0,
        description="the same for a post hook that captures in its own process (no service)",
    )
    judge_max_calls: int = Field(
        default=2, ge=0, le=20, description="close calls per statement sent to the LLM"
    )
    pair_model: Path | None = Field(
        default=None,
        description="a folder with model.onnx, tokenizer.json and manifest.json: an ONNX "
        "pair classifier of your own that settles close calls (`cortex-tui docs write-path`)",
    )


class GraphConfig(Section):
    fuzzy_threshold: float = Field(
        default=90.0,
        ge=0,
        le=100,
        description="rapidfuzz score (0-100) at which a name is an existing entity",
    )
    vector_threshold: float = Field(
        default=0.87,
        gt=0,
        le=1,
        description="cosine of two names' vectors at which they are one entity",
    )
    exclusive_predicates: list[str] = Field(
        description="relations an entity has one of at a time: a new one retires the old",
        default_factory=lambda: [
            "works_at",
            "leads",
            "lives_in",
            "uses_version",
            "reports_to",
            "located_in",
            "deploys_to",
            "owned_by",
        ],
    )


class LifecycleConfig(Section):
    session_idle_hours: float = Field(
        default=24.0, gt=0, description="`lifecycle` archives a session memory unused this long"
    )
    consolidate_threshold: float = Field(
        default=0.92,
        gt=0,
        le=1,
        description="cosine at which `lifecycle` folds two current memories into one",
    )


class ContextConfig(Section):
    """Neighbour context: memories of a conversation (a session and a turn) are indexed
    with the turn before them. Index-side: changing these applies to memories written
    afterwards (`cortex-tui reembed` rebuilds every memory's context).

    Measured on LoCoMo's development conversations (docs/measurements.md, "Neighbour context"): the
    previous turn's words at half weight and a context vector made of the memory's and
    the previous turn's vectors (no second embedding) lift R@10 from 69.4 to about 74.
    """

    enabled: bool = Field(
        default=True, description="index a memory of a conversation with the turn before it"
    )
    lexical_weight: float = Field(
        default=0.5, ge=0, le=1, description="what a previous-turn word counts for BM25"
    )
    max_chars: int = Field(
        default=1000, ge=0, description="the previous turn's text kept (its end) for BM25"
    )


class PartsConfig(Section):
    """Part vectors: a memory of several sentences is also indexed by each sentence, so
    a fact said in passing inside a long turn is found by a question about it alone.
    Index-side: changing these applies to memories written afterwards (`cortex-tui
    reembed` rebuilds every memory's parts). Each part is one more embedding at write
    time; a one-sentence memory has none."""

    enabled: bool = Field(
        default=True, description="index a memory of several sentences by each sentence too"
    )
    max_parts: int = Field(
        default=48, ge=2, le=512, description="sentences of a memory indexed (its first)"
    )
    min_chars: int = Field(
        default=40, ge=0, le=1000, description="a shorter sentence joins its neighbour"
    )
