"""Every engine operation, declared once.

A declaration names the operation, its arguments (one pydantic model), its answer, whether
it writes, a one-line description fit for a model to read, the HTTP route it is served
on, and how an `Engine` performs it. The remote client, the service's routes and the MCP
tools are all derived from these declarations; the local engine stays the one
implementation. Adding an operation means one declaration here and one method on the
`Engine` protocol.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter

from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.protocol import Engine
from cortex_tui.engine.requests import (
    ActivityRequest,
    AliasRequest,
    BackupRequest,
    CaptureRequest,
    DayRequest,
    EntityListRequest,
    EntityMergeRequest,
    EntityRef,
    EntitySearchRequest,
    ExplainRequest,
    GroupRef,
    HealthRequest,
    IdPrefix,
    ImportRequest,
    LifecycleRequest,
    ListRequest,
    MapRequest,
    MemoryRef,
    MergeRequest,
    NeighbourhoodRequest,
    NoArguments,
    ProfileRequest,
    Removed,
    RenameRequest,
    ResolvedId,
    ResolveRequest,
    TimelineRequest,
    UndoRequest,
    UpdateRequest,
    WordsRequest,
)
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.lifecycle.report import LifecycleReport
from cortex_tui.maintenance.backup import BackupReport
from cortex_tui.models import (
    Entity,
    Explanation,
    ImportReport,
    Memory,
    MemoryDraft,
    MemoryPage,
    RecallResponse,
    Stats,
    WriteResult,
)
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, Vitals, WordCloud
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry
from cortex_tui.write.turns import CaptureReport

Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp")

_PATH_FIELD = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class Route:
    """Where the service answers an operation. Path segments in braces are filled from
    the argument fields of the same name; the other fields travel as query parameters
    for GET and DELETE, else as the JSON body (or only `body_field`'s value, when set)."""

    method: str
    path: str
    body_field: str | None = None

    @property
    def path_fields(self) -> tuple[str, ...]:
        return tuple(_PATH_FIELD.findall(self.path))

    @property
    def has_body(self) -> bool:
        return self.method not in ("GET", "DELETE")


@dataclass(frozen=True)
class Operation(Generic[Req, Resp]):
    name: str
    request: type[Req]
    response: Any
    description: str
    route: Route
    perform: Callable[[Engine, Req], Resp]
    writes: bool | Callable[[Req], bool] = False
    server_files: tuple[str, ...] = ()
    """Fields naming a file on the machine the engine runs on: a tenant of a team
    server may not give them (its files stay in its own data home)."""
    adds_memories: bool = False
    """Whether a call may add memories: on a team server, a tenant's quota is checked
    first (`tenants.memories`)."""

    def writes_for(self, request: Req) -> bool:
        """Whether this call changes the store (the service serialises it as a write)."""
        return self.writes(request) if callable(self.writes) else self.writes

    @property
    def may_write(self) -> bool:
        return self.writes is not False

    @cached_property
    def answer(self) -> TypeAdapter[Resp]:
        return TypeAdapter(self.response)


def _get(path: str) -> Route:
    return Route("GET", path)


def _post(path: str, body_field: str | None = None) -> Route:
    return Route("POST", path, body_field)


# --- reading -----------------------------------------------------------------------------

HEALTH = Operation(
    "health",
    HealthRequest,
    dict[str, Any],
    "Whether the store and the embedder answer: store location, embedder, memory count; "
    "`deep` reads back every point and checks the spool, permissions and newest backup.",
    _get("/v1/health"),
    lambda engine, r: engine.health(deep=r.deep),
)
STATS = Operation(
    "stats",
    NoArguments,
    Stats,
    "Counts of memories (current, superseded, deleted, in conflict) by type, scope and project.",
    _get("/v1/stats"),
    lambda engine, _: engine.stats(),
)
ACTIVITY = Operation(
    "activity",
    ActivityRequest,
    dict[str, int],
    "Memories created per day over the last `days` days (ISO date to count).",
    _get("/v1/activity"),
    lambda engine, r: engine.activity(r.days),
)
MEMORY_MAP = Operation(
    "memory_map",
    MapRequest,
    MemoryMap,
    "The store's memories on the two principal axes of their vectors (a fixed sample above "
    "20,000), clustered and labelled by distinctive terms; with `query`, where it and its "
    "top results lie.",
    _get("/v1/overview/map"),
    lambda engine, r: engine.memory_map(
        superseded=r.superseded, query=r.query, top_k=r.top_k, refit=r.refit
    ),
)
WORD_CLOUD = Operation(
    "word_cloud",
    WordsRequest,
    WordCloud,
    "The most frequent terms of current memories (of one project, one type), entities and "
    "tags counted as whole phrases.",
    _get("/v1/overview/words"),
    lambda engine, r: engine.word_cloud(project=r.project, type=r.type, limit=r.limit),
)
TIMELINE = Operation(
    "timeline",
    TimelineRequest,
    Timeline,
    "Memories created, superseded and captured per day over the last `days` days.",
    _get("/v1/overview/timeline"),
    lambda engine, r: engine.timeline(r.days),
)
DAY = Operation(
    "day",
    DayRequest,
    DayMemories,
    "The memories created, and the versions superseded, on one day.",
    _get("/v1/overview/day"),
    lambda engine, r: engine.day(r.day, r.limit),
)
VITALS = Operation(
    "vitals",
    NoArguments,
    Vitals,
    "Store size, spool depth and age, last capture, the hooks' last day (runs, p50, p95, "
    "failures), embedder and LLM, and each concern with the action that fixes it.",
    _get("/v1/overview/vitals"),
    lambda engine, _: engine.vitals(),
)
RECALL = Operation(
    "recall",
    RecallRequest,
    RecallResponse,
    "The memories most relevant to a query, ranked, each with the scores that placed it.",
    _post("/v1/recall"),
    lambda engine, r: engine.recall(r),
    # Recall records access (last_accessed, access_count), which is a write.
    writes=lambda r: r.update_access,
)
EXPLAIN = Operation(
    "explain",
    ExplainRequest,
    Explanation,
    "Why one memory ranks where it does for a query, or what kept it out of the results.",
    _post("/v1/explain"),
    lambda engine, r: engine.explain(r.request, r.memory_id),
)
GET = Operation(
    "get",
    MemoryRef,
    Memory,
    "One memory by id or unambiguous id prefix, with all its fields.",
    _get("/v1/memories/{memory_id}"),
    lambda engine, r: engine.get(r.memory_id),
)
RESOLVE_ID = Operation(
    "resolve_id",
    IdPrefix,
    ResolvedId,
    "The full id that an id prefix names.",
    _get("/v1/ids/{prefix}"),
    lambda engine, r: ResolvedId(id=engine.resolve_id(r.prefix)),
)
LIST = Operation(
    "list",
    ListRequest,
    MemoryPage,
    "Memories matching a filter, newest first, one page at a time.",
    _post("/v1/memories/list"),
    lambda engine, r: engine.list_memories(r.filter, r.limit, r.offset),
)
HISTORY = Operation(
    "history",
    MemoryRef,
    list[Memory],
    "A memory's version chain, oldest first: what it said before each update and when.",
    _get("/v1/memories/{memory_id}/history"),
    lambda engine, r: engine.history(r.memory_id),
)
CONFLICTS = Operation(
    "conflicts",
    NoArguments,
    list[ConflictGroup],
    "Groups of memories that contradict each other and wait for a decision.",
    _get("/v1/conflicts"),
    lambda engine, _: engine.conflicts(),
)
PROFILES = Operation(
    "profiles",
    NoArguments,
    dict[str, RecallWeights],
    "The recall weight profiles, the default first.",
    _get("/v1/profiles"),
    lambda engine, _: engine.weight_profiles(),
)

# --- writing -----------------------------------------------------------------------------

REMEMBER = Operation(
    "remember",
    MemoryDraft,
    WriteResult,
    "Store one memory; a duplicate reinforces, a changed fact supersedes, a clash is flagged.",
    _post("/v1/remember"),
    lambda engine, r: engine.remember(r),
    writes=True,
    adds_memories=True,
)
CAPTURE = Operation(
    "capture",
    CaptureRequest,
    CaptureReport,
    "Extract the memories worth keeping from a conversation turn and store them.",
    _post("/v1/capture"),
    lambda engine, r: engine.capture(
        r.text, project=r.project, session_id=r.session_id, source=r.source
    ),
    writes=True,
    adds_memories=True,
)
UPDATE = Operation(
    "update",
    UpdateRequest,
    Memory,
    "Change a memory: a new version supersedes it, and the old one stays in its history.",
    Route("PATCH", "/v1/memories/{memory_id}"),
    lambda engine, r: engine.update(
        r.memory_id, **r.model_dump(exclude_unset=True, exclude={"memory_id"})
    ),
    writes=True,
)
FORGET = Operation(
    "forget",
    MemoryRef,
    Memory,
    "Mark a memory deleted: recall stops returning it; `restore` or `undo` brings it back.",
    Route("DELETE", "/v1/memories/{memory_id}"),
    lambda engine, r: engine.forget(r.memory_id),
    writes=True,
)
PURGE = Operation(
    "purge",
    NoArguments,
    Removed,
    "Remove deleted and archived memories for good.",
    _post("/v1/purge"),
    lambda engine, _: Removed(removed=engine.purge()),
    writes=True,
)
RESTORE = Operation(
    "restore",
    MemoryRef,
    Memory,
    "Bring a forgotten or archived memory back.",
    _post("/v1/memories/{memory_id}/restore"),
    lambda engine, r: engine.restore(r.memory_id),
    writes=True,
)
RESOLVE = Operation(
    "resolve",
    ResolveRequest,
    Memory,
    "Settle a conflict group by keeping one member; the others retire with history.",
    _post("/v1/conflicts/{group_id}/resolve"),
    lambda engine, r: engine.resolve(r.group_id, r.keep_id),
    writes=True,
)
MERGE = Operation(
    "merge",
    MergeRequest,
    Memory,
    "Settle a conflict group by replacing its members with one merged statement.",
    _post("/v1/conflicts/{group_id}/merge"),
    lambda engine, r: engine.merge(r.group_id, r.content),
    writes=True,
)
DISMISS = Operation(
    "dismiss",
    GroupRef,
    list[Memory],
    "Settle a conflict group as no conflict: every member stays current.",
    _post("/v1/conflicts/{group_id}/dismiss"),
    lambda engine, r: engine.dismiss(r.group_id),
    writes=True,
)
UNDO = Operation(
    "undo",
    UndoRequest,
    list[JournalEntry],
    "Undo the last `count` curation steps, newest first.",
    _post("/v1/undo"),
    lambda engine, r: engine.undo(r.count),
    writes=True,
)
LIFECYCLE = Operation(
    "lifecycle",
    LifecycleRequest,
    LifecycleReport,
    "Expire, decay, archive and consolidate by the configured rules (or only report them).",
    _post("/v1/lifecycle"),
    lambda engine, r: engine.lifecycle(dry_run=r.dry_run),
    writes=lambda r: not r.dry_run,
)
BACKUP = Operation(
    "backup",
    BackupRequest,
    BackupReport,
    "Write a consistent copy of the whole store (memories, entities, relations, journal, "
    "vectors) to one file.",
    _post("/v1/backup"),
    lambda engine, r: engine.backup(r.path),
    writes=True,  # run between writes: the copy is consistent
    server_files=("path",),
)
SAVE_PROFILE = Operation(
    "save_profile",
    ProfileRequest,
    None,
    "Save a recall weight profile to config.toml and use it from now on.",
    Route("PUT", "/v1/profiles/{name}", body_field="weights"),
    lambda engine, r: engine.save_weight_profile(r.name, r.weights),
    writes=True,
)
IMPORT = Operation(
    "import",
    ImportRequest,
    ImportReport,
    "Import exported JSONL lines; all are validated before anything is written.",
    _post("/v1/import"),
    lambda engine, r: engine.import_lines(r.lines, skip_invalid=r.skip_invalid),
    writes=True,
    adds_memories=True,
)

# --- the entity graph --------------------------------------------------------------------

ENTITIES = Operation(
    "entities",
    EntityListRequest,
    EntityPage,
    "Entities (people, projects, tools, ...), the most mentioned first.",
    _get("/v1/entities"),
    lambda engine, r: engine.graph.list_entities(r.type, r.limit, r.offset),
)
# Declared before ENTITY so that /v1/entities/search is not read as an entity named "search".
SEARCH_ENTITIES = Operation(
    "search_entities",
    EntitySearchRequest,
    list[EntityMatch],
    "Entities whose name or alias resembles the text, best match first.",
    _get("/v1/entities/search"),
    lambda engine, r: engine.graph.search(r.text, r.limit),
)
ENTITY = Operation(
    "entity",
    EntityRef,
    Entity,
    "One entity by id, id prefix or name.",
    _get("/v1/entities/{ref}"),
    lambda engine, r: engine.graph.get(r.ref),
)
NEIGHBOURHOOD = Operation(
    "neighbourhood",
    NeighbourhoodRequest,
    Neighbourhood,
    "An entity, the entities within `hops` relations of it, and the memories that mention them.",
    _get("/v1/entities/{ref}/neighbourhood"),
    lambda engine, r: engine.graph.neighbourhood(r.ref, r.hops),
)
MERGE_ENTITY = Operation(
    "merge_entity",
    EntityMergeRequest,
    Entity,
    "Fold one entity into another: its aliases, mentions and relations move over.",
    _post("/v1/entities/{ref}/merge"),
    lambda engine, r: engine.graph.merge(r.ref, r.into_id),
    writes=True,
)
ADD_ALIAS = Operation(
    "add_alias",
    AliasRequest,
    Entity,
    "Teach an entity another name it goes by.",
    _post("/v1/entities/{ref}/aliases"),
    lambda engine, r: engine.graph.add_alias(r.ref, r.alias),
    writes=True,
)
RENAME_ENTITY = Operation(
    "rename_entity",
    RenameRequest,
    Entity,
    "Give an entity a new name; the old one stays as an alias.",
    _post("/v1/entities/{ref}/rename"),
    lambda engine, r: engine.graph.rename(r.ref, r.name),
    writes=True,
)

# Export streams its lines as it reads them, so it has a route of its own instead of an
# operation with one answer.
EXPORT = Route("GET", "/v1/export")

OPERATIONS: tuple[Operation[Any, Any], ...] = (
    HEALTH,
    STATS,
    ACTIVITY,
    MEMORY_MAP,
    WORD_CLOUD,
    TIMELINE,
    DAY,
    VITALS,
    RECALL,
    EXPLAIN,
    GET,
    RESOLVE_ID,
    LIST,
    HISTORY,
    CONFLICTS,
    PROFILES,
    REMEMBER,
    CAPTURE,
    UPDATE,
    FORGET,
    PURGE,
    RESTORE,
    RESOLVE,
    MERGE,
    DISMISS,
    UNDO,
    LIFECYCLE,
    BACKUP,
    SAVE_PROFILE,
    IMPORT,
    ENTITIES,
    SEARCH_ENTITIES,
    ENTITY,
    NEIGHBOURHOOD,
    MERGE_ENTITY,
    ADD_ALIAS,
    RENAME_ENTITY,
)
