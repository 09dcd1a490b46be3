"""What the agents' side runs with: `[hooks]`, `[injections]` (the record of what each
turn was given), `[service]`, `[tenants]` (a team server)."""

from __future__ import annotations

from pydantic import (
    Field,
)

from cortex_tui.config.base import Section


class HooksConfig(Section):
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


class InjectionsConfig(Section):
    """The record of what memory gave each agent turn (`cortex-tui given`, the TUI's
    Given pane): written by the service after it answers, private like the rest of the
    home, with no secret in it.

    The section keeps its first name, `[injections]`, as the records' folder does: a
    config file or a `CORTEX_INJECTIONS__ENABLED=false` written to turn the records off
    keeps them off."""

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


class ServiceConfig(Section):
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


class TenantsConfig(Section):
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
