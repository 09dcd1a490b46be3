"""The turn archive: `[archive]` (`cortex_tui/archive/`)."""

from __future__ import annotations

from pydantic import Field

from cortex_tui.config.base import RelevanceFloor, Section


class ArchiveConfig(Section):
    """Every captured turn is also kept as it was said (after the privacy step): the
    person's prompt and the agent's answer, searchable and quoted into a prompt's block
    when a sentence of it bears on the prompt, in the budget memories leave. Capture
    keeps what its rules judge durable; the archive keeps the rest, so nothing said is
    lost."""

    enabled: bool = Field(
        default=True, description="keep every captured turn in the archive and quote from it"
    )
    keep_days: int | None = Field(
        default=None,
        ge=1,
        description="archived turns older than this are removed by `lifecycle` (none: kept)",
    )
    max_messages: int = Field(
        default=200_000,
        ge=100,
        description="the archive's size limit, in messages: `lifecycle` removes the oldest "
        "beyond it",
    )
    candidates: int = Field(
        default=30, ge=1, le=500, description="archived messages each search reads, per channel"
    )
    max_quotes: int = Field(
        default=3, ge=0, le=100, description="quotes a prompt's block gives at most"
    )
    quote_chars: int = Field(
        default=400,
        ge=40,
        le=4000,
        description="a quote's length at most: the message's sentences nearest the query, "
        "in their order",
    )
    min_relevance: RelevanceFloor = Field(
        default=0.993,
        description="the relevance (recall/gate.py) a quote needs, whatever the memories "
        "got: an archive holds far more than the memories, so more of it looks close by "
        "chance",
    )
