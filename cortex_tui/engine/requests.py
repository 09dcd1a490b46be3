"""The arguments of each engine operation as one pydantic model.

An operation's arguments travel as a whole: the remote client sends this model, the
HTTP route validates it, and an MCP tool publishes its JSON schema. Field names are the
names of the path segments they fill (`/v1/memories/{memory_id}`), so a route and its
model cannot drift apart.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.config import RecallWeights
from cortex_tui.models import EntityType, MemoryType, Scope
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter

MAX_DAYS = 3660
"""The longest span a timeline covers: ten years."""


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArguments(Arguments):
    pass


class ActivityRequest(Arguments):
    days: int = Field(default=30, description="how many days back from today")


class MapRequest(Arguments):
    superseded: bool = Field(default=False, description="draw replaced versions too")
    query: str | None = Field(
        default=None, min_length=1, description="place this query and its top results"
    )
    top_k: int = Field(default=10, ge=1, le=100, description="how many results to place")
    refit: bool = Field(default=False, description="fit the axes again on today's store")


class WordsRequest(Arguments):
    project: str | None = Field(default=None, description="only this project's memories")
    type: MemoryType | None = Field(default=None, description="only memories of this type")
    limit: int = Field(default=60, ge=1, le=500)


class TimelineRequest(Arguments):
    days: int = Field(default=90, description=f"how many days back from today (1 to {MAX_DAYS})")


class DayRequest(Arguments):
    day: date = Field(description="an ISO date, in the engine's time zone")
    limit: int = Field(default=200, ge=1, le=1000)


class ExplainRequest(Arguments):
    request: RecallRequest
    memory_id: str = Field(description="the memory whose place in that recall to explain")


class MemoryRef(Arguments):
    memory_id: str = Field(description="a memory's id, or an unambiguous prefix of it (8+ chars)")


class IdPrefix(Arguments):
    prefix: str


class ListRequest(Arguments):
    filter: MemoryFilter = Field(default_factory=MemoryFilter)
    limit: int = Field(default=50, ge=1, le=1000)
    offset: str | None = Field(default=None, description="next_offset of the previous page")


class CaptureRequest(Arguments):
    text: str
    project: str | None = None
    session_id: str | None = None
    source: str = "capture"


class UpdateRequest(Arguments):
    """Only the fields given change; the rest carry over to the new version."""

    memory_id: str = Field(description="a memory's id, or an unambiguous prefix of it")
    content: str | None = None
    type: MemoryType | None = None
    scope: Scope | None = None
    tags: list[str] | None = None
    project: str | None = None
    confidence: float | None = None


class GroupRef(Arguments):
    group_id: str = Field(description="a conflict group's id")


class ResolveRequest(GroupRef):
    keep_id: str = Field(description="the member that stays current; the others retire")


class MergeRequest(GroupRef):
    content: str = Field(description="one statement replacing every member")


class UndoRequest(Arguments):
    count: int = Field(default=1, ge=1)


class HealthRequest(Arguments):
    deep: bool = Field(
        default=False,
        description="also read back every point, check the spool, permissions and newest backup",
    )


class LifecycleRequest(Arguments):
    dry_run: bool = False


class BackupRequest(Arguments):
    path: str | None = Field(
        default=None,
        description="absolute path of the file (or a folder for it); default: the backups folder",
    )


class ProfileRequest(Arguments):
    name: str
    weights: RecallWeights


class ImportRequest(Arguments):
    lines: list[str]
    skip_invalid: bool = False


class EntityListRequest(Arguments):
    type: EntityType | None = None
    limit: int = Field(default=50, ge=1)
    offset: int = Field(default=0, ge=0)


class EntitySearchRequest(Arguments):
    text: str
    limit: int = Field(default=10, ge=1)


class EntityRef(Arguments):
    ref: str = Field(description="an entity's id, id prefix or name")


class NeighbourhoodRequest(EntityRef):
    hops: int = 2


class EntityMergeRequest(EntityRef):
    into_id: str


class AliasRequest(EntityRef):
    alias: str


class RenameRequest(EntityRef):
    name: str


class ResolvedId(BaseModel):
    id: str


class Removed(BaseModel):
    removed: int
