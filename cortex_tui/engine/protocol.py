"""The `Engine` protocol: the one seam every surface (CLI, hooks, service, TUI, MCP) talks
to, and the one place each operation is declared (`engine/declaration.py` says what is
derived from it).

Two implementations share it: `LocalEngine` in the calling process, and `RemoteEngine`,
a client of a service generated from these declarations. A surface that types against
this protocol works unchanged against either. The engine has parts, each a protocol of
its own reached as an attribute (`engine.curation.resolve(...)`): the entity graph
(`GraphService`), curation, the overview, upkeep, what turns were given and the turn
archive (`engine/parts/`). Adding an
operation is a method here and its implementation on `LocalEngine` or the part's class;
adding a part is a protocol here, its class, and one line in `operations.PARTS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Annotated, Any, Protocol

from pydantic import Field

from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.engine.declaration import Route, on_get, on_post, operation
from cortex_tui.given.judgements import Judgement
from cortex_tui.given.record import GivenRecord, Verdict
from cortex_tui.given.usefulness import Unhelpful
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.lifecycle.report import LifecycleReport
from cortex_tui.maintenance.backup import BackupReport
from cortex_tui.models import (
    ArchivedMessage,
    ArchivedSession,
    Entity,
    EntityType,
    Explanation,
    ImportReport,
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryType,
    Quote,
    RecallResponse,
    Scope,
    Stats,
    UtcDatetime,
    WriteResult,
)
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, Vitals, WordCloud
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter
from cortex_tui.write.turn_capture import CaptureReport

MAX_DAYS = 3660
"""The longest span a timeline covers: ten years."""

MemoryId = Annotated[
    str, Field(description="a memory's id, or an unambiguous prefix of it (8+ chars)")
]
GroupId = Annotated[str, Field(description="a conflict group's id")]
EntityRef = Annotated[str, Field(description="an entity's id, id prefix or name")]


class EntityGraph(Protocol):
    """The entity graph as a person curates it."""

    @operation(on_get("/v1/entities"), name="entities")
    def list_entities(
        self,
        type: EntityType | None = None,
        limit: Annotated[int, Field(ge=1)] = 50,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> EntityPage:
        """Entities (people, projects, tools, ...), the most mentioned first."""
        ...

    # Declared before `get` so that /v1/entities/search is not read as an entity "search".
    @operation(on_get("/v1/entities/search"), name="search_entities")
    def search(self, text: str, limit: Annotated[int, Field(ge=1)] = 10) -> list[EntityMatch]:
        """Entities whose name or alias resembles the text, best match first."""
        ...

    @operation(on_get("/v1/entities/{ref}"), name="entity")
    def get(self, ref: EntityRef) -> Entity:
        """One entity by id, id prefix or name."""
        ...

    @operation(on_get("/v1/entities/{ref}/neighbourhood"))
    def neighbourhood(self, ref: EntityRef, hops: int = 2) -> Neighbourhood:
        """An entity, the entities within `hops` relations of it, and the memories that
        mention them."""
        ...

    @operation(on_post("/v1/entities/{ref}/merge"), name="merge_entity", writes=True)
    def merge(self, ref: EntityRef, into_id: str) -> Entity:
        """Fold one entity into another: its aliases, mentions and relations move over."""
        ...

    @operation(on_post("/v1/entities/{ref}/aliases"), writes=True)
    def add_alias(self, ref: EntityRef, alias: str) -> Entity:
        """Teach an entity another name it goes by."""
        ...

    @operation(on_post("/v1/entities/{ref}/rename"), name="rename_entity", writes=True)
    def rename(self, ref: EntityRef, name: str) -> Entity:
        """Give an entity a new name; the old one stays as an alias."""
        ...


class Curation(Protocol):
    """What a person settles by hand: conflicts between memories, a forgotten memory
    brought back, and the steps undo takes back."""

    @operation(on_get("/v1/conflicts"))
    def conflicts(self) -> list[ConflictGroup]:
        """Groups of memories that contradict each other and wait for a decision."""
        ...

    @operation(on_post("/v1/memories/{memory_id}/restore"), writes=True)
    def restore(self, memory_id: MemoryId) -> Memory:
        """Bring a forgotten or archived memory back."""
        ...

    @operation(on_post("/v1/conflicts/{group_id}/resolve"), writes=True)
    def resolve(
        self,
        group_id: GroupId,
        keep_id: Annotated[
            str, Field(description="the member that stays current; the others retire")
        ],
    ) -> Memory:
        """Settle a conflict group by keeping one member; the others retire with
        history."""
        ...

    @operation(on_post("/v1/conflicts/{group_id}/merge"), writes=True)
    def merge(
        self,
        group_id: GroupId,
        content: Annotated[str, Field(description="one statement replacing every member")],
    ) -> Memory:
        """Settle a conflict group by replacing its members with one merged statement."""
        ...

    @operation(on_post("/v1/conflicts/{group_id}/dismiss"), writes=True)
    def dismiss(self, group_id: GroupId) -> list[Memory]:
        """Settle a conflict group as no conflict: every member stays current."""
        ...

    @operation(on_post("/v1/undo"), writes=True)
    def undo(self, count: Annotated[int, Field(ge=1)] = 1) -> list[JournalEntry]:
        """Undo the last `count` curation steps, newest first."""
        ...


class Overview(Protocol):
    """The store seen whole: counts, the map of its vectors, its words and its days."""

    @operation(on_get("/v1/stats"))
    def stats(self) -> Stats:
        """Counts of memories (current, superseded, deleted, in conflict) by type, scope
        and project."""
        ...

    @operation(on_get("/v1/activity"))
    def activity(
        self, days: Annotated[int, Field(description="how many days back from today")] = 30
    ) -> dict[str, int]:
        """Memories created per day over the last `days` days (ISO date to count)."""
        ...

    @operation(on_get("/v1/overview/map"))
    def memory_map(
        self,
        *,
        superseded: Annotated[bool, Field(description="draw replaced versions too")] = False,
        query: Annotated[
            str | None, Field(min_length=1, description="place this query and its top results")
        ] = None,
        top_k: Annotated[int, Field(ge=1, le=100, description="how many results to place")] = 10,
        refit: Annotated[bool, Field(description="fit the axes again on today's store")] = False,
    ) -> MemoryMap:
        """The store's memories on the two principal axes of their vectors (a fixed
        sample above 20,000), clustered and labelled by distinctive terms; with `query`,
        where it and its top results lie."""
        ...

    @operation(on_get("/v1/overview/words"))
    def word_cloud(
        self,
        *,
        project: Annotated[str | None, Field(description="only this project's memories")] = None,
        type: Annotated[MemoryType | None, Field(description="only memories of this type")] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 60,
    ) -> WordCloud:
        """The most frequent terms of current memories (of one project, one type),
        entities and tags counted as whole phrases."""
        ...

    @operation(on_get("/v1/overview/timeline"))
    def timeline(
        self,
        days: Annotated[
            int, Field(description=f"how many days back from today (1 to {MAX_DAYS})")
        ] = 90,
    ) -> Timeline:
        """Memories created, superseded and captured per day over the last `days` days."""
        ...

    @operation(on_get("/v1/overview/day"))
    def day(
        self,
        day: Annotated[date, Field(description="an ISO date, in the engine's time zone")],
        limit: Annotated[int, Field(ge=1, le=1000)] = 200,
    ) -> DayMemories:
        """The memories created, and the versions superseded, on one day."""
        ...


class Upkeep(Protocol):
    """Keeping the store well: its health and vitals, the lifecycle rules, backups, purge
    and import."""

    @operation(on_get("/v1/health"))
    def health(
        self,
        *,
        deep: Annotated[
            bool,
            Field(
                description="also read back every point, check the spool, permissions and "
                "newest backup"
            ),
        ] = False,
    ) -> dict[str, Any]:
        """Whether the store and the embedder answer: store location, embedder, memory
        count; `deep` reads back every point and checks the spool, permissions and newest
        backup.

        `deep` adds `checks` (`maintenance/checkup.py`)."""
        ...

    @operation(on_get("/v1/overview/vitals"))
    def vitals(self) -> Vitals:
        """Store size, spool depth and age, last capture, the hooks' last day (runs, p50,
        p95, failures), embedder and LLM, and each concern with the action that fixes it.

        Cheap enough to ask every few seconds."""
        ...

    @operation(on_post("/v1/lifecycle"), writes=lambda request: not request.dry_run)
    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Expire, decay, archive and consolidate by the configured rules (or only report
        them).

        Unless a dry run, a backup is taken first (`backup.before_lifecycle`)."""
        ...

    # Run between writes, so that the copy is consistent.
    @operation(on_post("/v1/backup"), writes=True, server_files=("path",))
    def backup(
        self,
        path: Annotated[
            str | None,
            Field(
                description="absolute path of the file (or a folder for it); default: the "
                "backups folder"
            ),
        ] = None,
    ) -> BackupReport:
        """Write a consistent copy of the whole store (memories, entities, relations,
        journal, vectors) to one file."""
        ...

    @operation(on_post("/v1/purge"), writes=True)
    def purge(self) -> int:
        """Remove deleted and archived memories for good; how many were removed."""
        ...

    @operation(on_post("/v1/import"), name="import", writes=True, adds_memories=True)
    def import_lines(self, lines: list[str], *, skip_invalid: bool = False) -> ImportReport:
        """Import exported JSONL lines; all are validated before anything is written.

        Over a service, all lines go in one request, so a bad line leaves the store
        untouched there too."""
        ...


class GivenRecords(Protocol):
    """What memory each agent turn was given, and a person's judgements of it."""

    # The routes of what each turn was given keep their first name, `injections`: clients
    # and team servers of either version then answer each other.
    @operation(on_get("/v1/injections"), name="given")
    def records(
        self,
        session: Annotated[
            str | None, Field(description="one session's records: its id, or a start of it")
        ] = None,
        agent: Annotated[
            str | None, Field(description="one agent's records: claude, openclaw, mcp, plain")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 50,
        before: Annotated[
            UtcDatetime | None, Field(description="records older than this (the next page)")
        ] = None,
    ) -> list[GivenRecord]:
        """What memory gave each agent turn, newest first: the block as it was given, each
        memory's score breakdown as computed then, and what the budget left out."""
        ...

    @operation(on_get("/v1/injections/unhelpful"), name="unhelpful")
    def unhelpful_memories(
        self, min_given: Annotated[int, Field(ge=1, le=1000)] = 3
    ) -> list[Unhelpful]:
        """Memories recalled into at least `min_given` of the recorded turns that no one
        judged useful there, the most given first: what crowds the context for nothing."""
        ...

    @operation(on_post("/v1/injections/{injection_id}/judgements"), name="judge_turn", writes=True)
    def judge_turn(
        self,
        injection_id: Annotated[str, Field(description="the turn's record id (or a start)")],
        memory_id: Annotated[str, Field(description="a memory that turn was given")],
        verdict: Verdict,
    ) -> Judgement:
        """Judge a memory where a turn was given it: useful there, or wrong there. A wrong
        one that is still current is lowered (a new version with less confidence, which
        undo takes back)."""
        ...

    @operation(on_post("/v1/judgements/{judgement_id}/withdraw"), writes=True)
    def withdraw_judgement(self, judgement_id: str) -> Judgement:
        """Take a judgement back, and the lowering it made when that is the last change."""
        ...

    @operation(on_post("/v1/injections"), name="record_given")
    def record(self, record: GivenRecord) -> None:
        """Keep the record of a context given to a caller (any secret in it is replaced
        first); nothing when `injections.enabled` is off."""
        ...


class TurnArchive(Protocol):
    """Every captured turn as it was said (`cortex_tui/archive/`; not a memory's
    `archived` status): its sessions, a session's messages, a search over them."""

    @operation(on_get("/v1/archive/sessions"), name="archived_sessions")
    def sessions(
        self,
        project: Annotated[
            str | None, Field(description="one project's sessions (its name or key)")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=10_000)] = 50,
    ) -> list[ArchivedSession]:
        """The archive's sessions, the most recent first: when each began and ended, its
        turns and messages."""
        ...

    @operation(on_get("/v1/archive/sessions/{session_id}"), name="archived_session")
    def session(
        self,
        session_id: Annotated[str, Field(description="a session's id, or the start of one")],
    ) -> list[ArchivedMessage]:
        """One session's messages in the order they were said."""
        ...

    @operation(on_get("/v1/archive/memories/{memory_id}"), name="said_in")
    def said_in(
        self,
        memory_id: Annotated[str, Field(description="a memory's id, or the start of one")],
    ) -> list[ArchivedMessage]:
        """The messages of the turn a captured memory was taken from, in the order they
        were said (none for a memory not captured, or whose turn the archive no longer
        keeps)."""
        ...

    @operation(on_post("/v1/archive/search"), name="search_archive")
    def search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=10_000)],
        project: Annotated[
            str | None, Field(description="that project's messages and those of none")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 10,
    ) -> list[Quote]:
        """The archived messages nearest the query, best first, each quoted by its
        sentences nearest it, with how much it bears on the query."""
        ...


class Engine(Protocol):
    @property
    def graph(self) -> EntityGraph: ...

    @property
    def curation(self) -> Curation: ...

    @property
    def overview(self) -> Overview: ...

    @property
    def upkeep(self) -> Upkeep: ...

    @property
    def given(self) -> GivenRecords: ...

    @property
    def archive(self) -> TurnArchive: ...

    def now(self) -> datetime:
        """The engine's clock (frozen in tests and screenshots); ages are measured from it."""
        ...

    def export(self) -> Iterator[str]:
        """Every memory, entity and relation as JSONL lines (`maintenance/transfer.py`);
        streamed, so it is no operation with one answer (`operations.EXPORT`)."""
        ...

    def close(self) -> None: ...

    # --- reading -------------------------------------------------------------------------

    # Recall records access (last_accessed, access_count), which is a write.
    @operation(on_post("/v1/recall"), writes=lambda request: request.update_access)
    def recall(self, request: RecallRequest) -> RecallResponse:
        """The memories most relevant to a query, ranked, each with the scores that
        placed it."""
        ...

    @operation(on_post("/v1/explain"))
    def explain(
        self,
        request: RecallRequest,
        memory_id: Annotated[
            str, Field(description="the memory whose place in that recall to explain")
        ],
    ) -> Explanation:
        """Why one memory ranks where it does for a query, or what kept it out of the
        results."""
        ...

    @operation(on_get("/v1/memories/{memory_id}"))
    def get(self, memory_id: MemoryId) -> Memory:
        """One memory by id or unambiguous id prefix, with all its fields."""
        ...

    @operation(on_get("/v1/ids/{prefix}"))
    def resolve_id(self, prefix: str) -> str:
        """The full id that an id prefix names."""
        ...

    @operation(on_post("/v1/memories/list"), name="list")
    def list_memories(
        self,
        filter: MemoryFilter,
        limit: Annotated[int, Field(ge=1, le=1000)] = 50,
        offset: Annotated[str | None, Field(description="next_offset of the previous page")] = None,
    ) -> MemoryPage:
        """Memories matching a filter, newest first, one page at a time."""
        ...

    @operation(on_get("/v1/memories/{memory_id}/history"))
    def history(self, memory_id: MemoryId) -> list[Memory]:
        """A memory's version chain, oldest first: what it said before each update and
        when."""
        ...

    @operation(on_get("/v1/profiles"), name="profiles")
    def weight_profiles(self) -> dict[str, RecallWeights]:
        """The recall weight profiles, the default first.

        "default" is `recall.weights`; then the named profiles of the config."""
        ...

    # --- writing -------------------------------------------------------------------------

    @operation(on_post("/v1/remember"), writes=True, adds_memories=True)
    def remember(self, draft: MemoryDraft) -> WriteResult:
        """Store one memory; a duplicate reinforces, a changed fact supersedes, a clash is
        flagged."""
        ...

    @operation(on_post("/v1/capture"), writes=True, adds_memories=True)
    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
    ) -> CaptureReport:
        """Extract the memories worth keeping from a conversation turn and store them."""
        ...

    @operation(Route("PATCH", "/v1/memories/{memory_id}"), writes=True)
    def update(
        self,
        memory_id: MemoryId,
        *,
        content: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        tags: list[str] | None = None,
        project: str | None = None,
        confidence: float | None = None,
    ) -> Memory:
        """Change a memory: a new version supersedes it, and the old one stays in its
        history.

        Only the fields given change; the rest carry over to the new version."""
        ...

    @operation(Route("DELETE", "/v1/memories/{memory_id}"), writes=True)
    def forget(self, memory_id: MemoryId) -> Memory:
        """Mark a memory deleted: recall stops returning it; `restore` or `undo` brings it
        back."""
        ...

    @operation(
        Route("PUT", "/v1/profiles/{name}", body_field="weights"),
        name="save_profile",
        writes=True,
    )
    def save_weight_profile(self, name: str, weights: RecallWeights) -> None:
        """Save a recall weight profile to config.toml and use it from now on."""
        ...
