"""Arguments and answers of the tools that a model meets in a shape of their own.

Most tools take an operation's own request model. These few differ because a model
should see fewer, plainer fields than a person's API offers: a memory filter flattened
to the conditions worth asking for, a score breakdown only on request, one `conflicts`
tool for listing and settling, a `remember` that can say "queued" when the store is out
of reach, a `search` that can also quote what was said in past sessions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cortex_tui.config import RelevanceFloor
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.declaration import Arguments
from cortex_tui.given.record import GivenRecord
from cortex_tui.models import (
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryType,
    Quote,
    RecallResponse,
    Scope,
    ScoreBreakdown,
    UtcDatetime,
    WriteResult,
)
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter

MCP_SOURCE = "mcp"


class RememberArguments(Arguments):
    content: str = Field(
        min_length=1,
        description="one self-contained statement, e.g. 'The billing service deploys on Fridays'",
    )
    type: MemoryType | None = Field(
        default=None, description="what kind of memory; inferred from the wording when left out"
    )
    scope: Scope | None = Field(
        default=None, description="how long it holds; inferred when left out"
    )
    project: str | None = Field(
        default=None, description="the project it is about; leave out when true everywhere"
    )
    tags: list[str] = Field(default_factory=list)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    ttl_hours: float | None = Field(
        default=None, gt=0, description="forget it after this many hours"
    )

    def draft(self) -> MemoryDraft:
        return MemoryDraft(**self.model_dump(exclude_unset=True), source=MCP_SOURCE)


class RememberAnswer(BaseModel):
    queued: bool = Field(
        description="true when the store was out of reach: the memory waits in the durable "
        "spool and is stored as soon as the store is back"
    )
    result: WriteResult | None = Field(
        default=None, description="what the write path did (none while queued)"
    )
    note: str


class RecallArguments(Arguments):
    query: str = Field(min_length=1, description="what you want to know, in plain words")
    project: str | None = Field(
        default=None, description="the current project: its memories and global ones"
    )
    types: list[MemoryType] | None = None
    tags: list[str] | None = None
    limit: int = Field(default=10, ge=1, le=100)
    as_of: UtcDatetime | None = Field(
        default=None, description="recall what was true at this time (ISO 8601)"
    )
    include_history: bool = Field(
        default=False, description="also superseded versions, not only what holds now"
    )
    breakdown: bool = Field(
        default=False, description="include each result's score breakdown: why it ranked there"
    )
    min_relevance: RelevanceFloor | None = Field(
        default=None,
        description="only memories that bear on the query: none unless the best reaches this "
        "relevance (0-1; the hooks use about 0.9); omitted, everything is ranked",
    )

    def request(self) -> RecallRequest:
        """The recall asked for: every argument but `breakdown` (how the answer is shown)
        is a field of the request."""
        return RecallRequest(**self.model_dump(exclude={"breakdown"}))


class RecalledMemory(BaseModel):
    rank: int
    score: float
    memory: Memory
    conflicts_with: list[str] = Field(default_factory=list)
    breakdown: ScoreBreakdown | None = None


class RecallAnswer(BaseModel):
    query: str
    results: list[RecalledMemory]
    candidates: int = Field(description="how many memories were scored")
    elapsed_ms: float
    held_back: int = Field(
        default=0, description="results min_relevance kept out: they do not bear on the query"
    )

    @classmethod
    def of(cls, response: RecallResponse, *, breakdown: bool) -> RecallAnswer:
        results = [
            RecalledMemory(
                rank=result.rank,
                score=result.score,
                memory=result.memory,
                conflicts_with=result.conflicts_with,
                breakdown=result.breakdown if breakdown else None,
            )
            for result in response.results
        ]
        return cls(
            query=response.query,
            results=results,
            candidates=response.candidates,
            elapsed_ms=response.elapsed_ms,
            held_back=len(response.held_back),
        )


class SearchArguments(Arguments):
    text: str = Field(
        min_length=1, description="words that must all appear in the memory (any case)"
    )
    project: str | None = None
    limit: int = Field(default=20, ge=1, le=200)
    offset: str | None = Field(default=None, description="next_offset of the previous page")
    include_archive: bool = Field(
        default=False,
        description="also quote what was said in past sessions that holds every word (the "
        "turn archive keeps each captured turn's prompt and answer, much of which is no "
        "memory): with the first page",
    )

    def memory_filter(self) -> MemoryFilter:
        return MemoryFilter(text=self.text, project=self.project)

    def holds_every_word(self, text: str) -> bool:
        said = text.casefold()
        return all(word in said for word in self.text.casefold().split())


class ArchiveQuote(BaseModel):
    """A sentence said in a captured turn: what was said, not a memory (never judged,
    superseded or reinforced)."""

    id: str = Field(description="the archived message it comes from")
    said_at: UtcDatetime = Field(description="when it was said")
    session_id: str | None = None
    turn: int | None = Field(default=None, description="its turn's position in the session")
    speaker: str | None = Field(default=None, description="who said it: user or assistant")
    project: str | None = None
    text: str = Field(description="the message's sentences nearest the words, as said")

    @classmethod
    def of(cls, quote: Quote) -> ArchiveQuote:
        """The quote without how recall ranked it (a model reads what was said)."""
        return cls.model_validate(quote.model_dump(include=set(cls.model_fields)))


class SearchAnswer(MemoryPage):
    quotes: list[ArchiveQuote] = Field(
        default_factory=list,
        description="with include_archive: the archived sentences holding every word, "
        "nearest first (on the first page only)",
    )


class ListArguments(Arguments):
    project: str | None = Field(
        default=None, description="that project's memories, plus global ones"
    )
    project_only: bool = Field(default=False, description="leave the global ones out")
    types: list[MemoryType] | None = None
    scopes: list[Scope] | None = None
    tags: list[str] | None = Field(default=None, description="memories with any of these tags")
    include_history: bool = Field(default=False, description="also superseded versions")
    limit: int = Field(default=20, ge=1, le=200)
    offset: str | None = Field(default=None, description="next_offset of the previous page")

    def memory_filter(self) -> MemoryFilter:
        return MemoryFilter(
            project=self.project,
            project_only=self.project_only,
            types=self.types,
            scopes=self.scopes,
            tags=self.tags,
            current_only=not self.include_history,
        )


class EntitiesArguments(Arguments):
    name: str = Field(
        min_length=1, description="an entity's name, alias or id, e.g. 'billing-service'"
    )
    hops: int = Field(default=1, ge=0, le=3, description="how many relations away to reach")


class ConflictsArguments(Arguments):
    action: Literal["list", "keep", "merge", "dismiss"] = Field(
        default="list",
        description="list the groups; or settle one: keep one member, merge them into one "
        "statement, or dismiss (not a real conflict)",
    )
    group_id: str | None = Field(default=None, description="the group to settle")
    keep_id: str | None = Field(default=None, description="for keep: the member that stays")
    content: str | None = Field(default=None, description="for merge: the merged statement")


class ConflictsAnswer(BaseModel):
    groups: list[ConflictGroup] = Field(description="the groups still waiting for a decision")
    settled: list[Memory] = Field(
        default_factory=list, description="what the decision left current"
    )


class GivenArguments(Arguments):
    session: str | None = Field(
        default=None, description="the session's id (or its start); leave out for the newest"
    )
    limit: int = Field(default=1, ge=1, le=20, description="how many of the last prompts")
    include_recalls: bool = Field(
        default=False, description="also what this tool's own recall calls were given"
    )


class GivenAnswer(BaseModel):
    turns: list[GivenRecord] = Field(
        description="newest first: the block as given, each memory with its score breakdown "
        "as computed then, and what the budget left out"
    )
    note: str
