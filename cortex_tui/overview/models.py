"""What the overview operations answer: plain pydantic models, sent as JSON by the service.

The map is columnar (one list per field, not one object per point): 20,000 points as
objects cost the service and the client several times more to encode and validate.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from cortex_tui.models import Memory


class MapCluster(BaseModel):
    """A group of nearby points, labelled by the terms that set it apart from the rest."""

    x: float
    y: float
    size: int
    terms: list[str]


class MapHit(BaseModel):
    """One of a query's top results, where it lies on the map."""

    id: str
    rank: int
    x: float
    y: float
    score: float


class MemoryMap(BaseModel):
    """The store's vectors projected onto their two principal axes.

    `total` memories qualified and `len(ids)` are drawn: above the sample size a fixed,
    hash-chosen subset (the same memories every time, whatever order they are read in).
    `explained` is the share of the vectors' variance each axis carries: what the flat
    picture keeps of the distances recall works with.
    """

    total: int
    ids: list[str] = Field(default_factory=list)
    x: list[float] = Field(default_factory=list)
    y: list[float] = Field(default_factory=list)
    types: list[str] = Field(default_factory=list)
    projects: list[str | None] = Field(default_factory=list)
    conflicted: list[bool] = Field(default_factory=list)
    superseded: list[bool] = Field(default_factory=list)
    clusters: list[MapCluster] = Field(default_factory=list)
    explained: tuple[float, float] = (0.0, 0.0)
    fitted_on: int = 0
    """How many vectors the axes were computed from (they are kept while the store grows
    by less than a fifth, so the map does not jump at every new memory)."""
    query: str | None = None
    query_x: float | None = None
    query_y: float | None = None
    hits: list[MapHit] = Field(default_factory=list)

    @property
    def sampled(self) -> bool:
        return len(self.ids) < self.total


TermKind = Literal["word", "entity", "tag"]


class TermCount(BaseModel):
    term: str
    count: int = Field(description="memories that mention it")
    kind: TermKind


class WordCloud(BaseModel):
    memories: int = Field(description="current memories matching the filter")
    counted: int = Field(description="of those, the ones counted (a fixed sample above 20,000)")
    terms: list[TermCount]
    projects: list[str] = Field(
        default_factory=list, description="every project of the current memories, to filter by"
    )


class DayCounts(BaseModel):
    day: str = Field(description="ISO date, in the engine's time zone")
    created: int = 0
    superseded: int = 0
    captured: int = Field(default=0, description="created by the capture path (hooks, transcripts)")


class Timeline(BaseModel):
    days: list[DayCounts] = Field(description="oldest first, quiet days included")


class DayMemories(BaseModel):
    day: str
    created: list[Memory] = Field(description="created that day, oldest first")
    superseded: list[Memory] = Field(description="replaced by a newer version that day")
    more: bool = Field(default=False, description="the day holds more than the limit")


class HookFigures(BaseModel):
    """One hook kind's runs over the last day, read from hooks.log."""

    kind: str
    runs: int
    failures: int
    p50_ms: float | None = None
    p95_ms: float | None = None
    last_failure: str | None = None


class Concern(BaseModel):
    """Something that needs the user, and the action that fixes it."""

    found: str
    fix: str


class Vitals(BaseModel):
    """How the memory is kept, as the process that holds the store sees it."""

    store: str
    store_bytes: int
    memories: int
    spool_pending: int
    spool_oldest_s: float | None = None
    spool_quarantined: int = 0
    spool_ok: bool = Field(default=True, description="nothing stuck, nothing quarantined")
    last_capture: datetime | None = None
    hooks: list[HookFigures] = Field(default_factory=list)
    embedder: str
    llm: str = Field(description='"none" when extraction and judging run offline')
    concerns: list[Concern] = Field(default_factory=list)
