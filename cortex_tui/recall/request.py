"""What a caller asks recall for; one pydantic model so it crosses the service unchanged."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.config import FusionMode, RecallWeights, RelevanceFloor
from cortex_tui.models import MemoryStatus, MemoryType, UtcDatetime
from cortex_tui.store.base import MemoryFilter


class RecallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
    project: str | None = None
    types: list[MemoryType] | None = None
    tags: list[str] | None = None
    limit: int | None = Field(default=None, ge=1, le=1000)
    budget_tokens: int | None = Field(default=None, ge=1)
    max_chars: int | None = Field(default=None, ge=1)
    include_history: bool = False
    as_of: UtcDatetime | None = None
    update_access: bool = True
    profile: str | None = None
    weights: RecallWeights | None = None
    fusion: FusionMode | None = None
    rerank_budget_ms: int | None = Field(
        default=None, ge=0, description="LLM re-rank budget; None = the interactive default"
    )
    given_already: list[str] = Field(
        default_factory=list,
        max_length=1000,
        description="memory ids the asker was given already (a session's standing rules): "
        "not ranked again",
    )
    min_relevance: RelevanceFloor | None = Field(
        default=None,
        description="only memories that bear on the query: the relevance (0–1) the best "
        "result needs for any to be given (recall/gate.py); None ranks everything",
    )

    include_archive: bool = Field(
        default=False,
        description="also quote the sentences of the turn archive that bear on the query "
        "(cortex_tui/archive/): gated like memories, given after them",
    )

    def memory_filter(self) -> MemoryFilter:
        return MemoryFilter(
            project=self.project,
            types=self.types,
            tags=self.tags,
            current_only=not self.include_history,
            as_of=self.as_of,
            statuses=[MemoryStatus.ACTIVE],
        )
