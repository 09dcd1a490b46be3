"""Where and how memories are kept: `[store]`, `[backup]`, `[privacy]`, `[limits]`."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import (
    Field,
    model_validator,
)

from cortex_tui.config.base import Section


class BackupConfig(Section):
    """Automatic backups: taken before a pass that rewrites many memories at once."""

    before_lifecycle: bool = Field(
        default=True, description="back the store up before `lifecycle` changes anything"
    )
    keep: int = Field(
        default=5, ge=1, description="automatic backups kept (oldest removed; manual ones stay)"
    )
    folder: Path | None = Field(default=None, description="default: the home's backups/")


class PrivacyConfig(Section):
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


class LimitsConfig(Section):
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


COMPACT_AFTER = 5000
"""Memories an embedded store's written segment collects before a compaction folds them."""


class StoreConfig(Section):
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
