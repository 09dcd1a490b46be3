"""Pairs datasets: an existing memory, a new statement, and what the new one should become.

The write path's judgement (duplicate, reinforce, update, contradiction or new) is what
every later recall depends on, and retrieval figures cannot show it; a pairs dataset
labels that judgement directly. Format: docs/commands.md, `eval`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cortex_tui.models import UtcDatetime, WriteLabel


class Pair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    old: str = Field(min_length=1)
    new: str = Field(min_length=1)
    label: WriteLabel
    part: str = Field(default="all", min_length=1)
    domain: str | None = None
    phrasing: str | None = None
    old_at: UtcDatetime | None = None
    new_at: UtcDatetime | None = None
    source: str | None = None
    """Where a pair not written for cortex-tui comes from (dataset, licence, item)."""


class PairsDataset(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["pairs"]
    name: str = Field(min_length=1)
    description: str = ""
    now: UtcDatetime
    pairs: list[Pair] = Field(min_length=1)

    @field_validator("pairs")
    @classmethod
    def _unique_ids(cls, pairs: list[Pair]) -> list[Pair]:
        seen: set[str] = set()
        for pair in pairs:
            if pair.id in seen:
                raise ValueError(f"pair id {pair.id!r} is used twice")
            seen.add(pair.id)
        return pairs
