"""The `Store` protocol: what the engine needs from a vector store, nothing more.

Two Qdrant backends implement it (embedded Qdrant Edge, qdrant-client for a server or
`:memory:`) and pass one contract suite. Filters are expressed as `MemoryFilter` and
every backend translates them into a filter *inside* the vector query (pre-filtering):
a filtered query must never be top-k first and filtered after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.models import (
    ConflictStatus,
    Entity,
    Memory,
    MemoryStatus,
    MemoryType,
    Relation,
    Scope,
    UtcDatetime,
)

Vector = Sequence[float] | npt.NDArray[np.float32]
Parts = Sequence[Vector] | npt.NDArray[np.float32]
"""A memory's part vectors: one per sentence of a text that has several, else none."""
WriteMemories = Callable[[Sequence[Memory], Sequence[Vector]], None]
"""Stores new memories with their vectors: the engine's writer adds neighbour context."""


class MemoryFilter(BaseModel):
    """Which memories a query may see. Every condition is ANDed.

    - `project`: that project's memories **plus** global ones (project is null).
      `project_only=True` drops the global ones (browsing one project).
    - `global_only`: only the global memories (`project` is then not read).
    - `current_only`: only current versions (`valid_to` is null). Ignored when `as_of`
      is set: then a version qualifies when `valid_from <= as_of < valid_to` (or
      `valid_to` is null) and it was created by `as_of`.
    - `statuses`: memory status must be one of these (default: active only).
    - `exclude_conflict_statuses`: e.g. `[resolved]` to hide memories retired by a
      conflict resolution.
    - `types`, `scopes`, `conflict_statuses`: match any of the given values.
    - `tags`: the memory has at least one of these tags.
    - `ids`: restrict to these ids (used by the graph channel and "why not?").
    - `session_id`, `conflict_group_id`: exact match.
    - `speakers`: the memory was said by one of these (exact match).
    - `sources`: its `source` is one of these (exact match; see `source_prefix`).
    - `before_turn`: the memory's `turn` is set and lower than this.
    - `source_prefix`: `source` starts with it (e.g. `index:docs/` for every chunk the
      markdown indexer stored from that folder); case-sensitive, as paths are.
    - `text`: case-insensitive match of every word in content (full-text index).
    - `has_predecessor`: only versions that supersede an older one (`supersedes_id`
      set), e.g. the heads of the version chains that changed.
    - `created_from` / `created_until`: created at or after / before (a day's memories);
      `ended_from` / `ended_until`: the same on `valid_to`, when a newer version took
      over (only versions that ended have one: use it with `current_only=False`).
    """

    model_config = ConfigDict(extra="forbid")

    project: str | None = None
    project_only: bool = False
    global_only: bool = False
    current_only: bool = True
    as_of: UtcDatetime | None = None
    statuses: list[MemoryStatus] | None = Field(default_factory=lambda: [MemoryStatus.ACTIVE])
    exclude_conflict_statuses: list[ConflictStatus] = Field(default_factory=list)
    types: list[MemoryType] | None = None
    scopes: list[Scope] | None = None
    conflict_statuses: list[ConflictStatus] | None = None
    tags: list[str] | None = None
    ids: list[str] | None = None
    session_id: str | None = None
    conflict_group_id: str | None = None
    speakers: list[str] | None = None
    sources: list[str] | None = None
    before_turn: int | None = None
    source_prefix: str | None = None
    text: str | None = None
    has_predecessor: bool = False
    created_from: UtcDatetime | None = None
    created_until: UtcDatetime | None = None
    ended_from: UtcDatetime | None = None
    ended_until: UtcDatetime | None = None


class StoreMeta(BaseModel):
    """Recorded at creation: which embedder made the vectors."""

    model_config = ConfigDict(extra="forbid")

    embedder: str
    dimension: int
    schema_version: int = 1
    created_at: datetime
    lexical_version: int = 1
    """The tokenizer version its lexical vectors were encoded with (1: before it was
    recorded)."""
    generation: str | None = None
    """Qdrant server only: the collections hold `{prefix}_{generation}_*` once a re-embed
    has switched the store to the ones it built (None: `{prefix}_*`)."""


@dataclass(frozen=True, slots=True)
class IndexContext:
    """What a memory is indexed with besides its own text: the turn before it in its
    session. Index-side only: the memory's content stays its own text.

    `vector` stands for the previous turn and this memory together (None leaves the
    memory without a context vector: a store built before context existed has no place
    for one); `lexical_weight` is what each of the previous turn's words counts for BM25
    next to one of the memory's own."""

    text: str
    vector: Vector | None
    lexical_weight: float


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    memory: Memory
    score: float


@dataclass(frozen=True, slots=True)
class ScoredEntity:
    entity: Entity
    score: float


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One curation action, enough to undo it: the memories as they were before."""

    id: str
    created_at: datetime
    action: str
    payload: dict[str, Any]


COLLECTIONS = ("memories", "entities", "relations", "journal", "archive")
"""Everything a store holds, by the names `points` and `put_points` take."""


@dataclass(frozen=True, slots=True)
class StoredPoint:
    """A point as the store keeps it: its payload as written (a journal entry's order
    and a memory's index context included) and its dense vectors by name. What a backup
    copies; the lexical vector is left out since it derives from the payload."""

    payload: dict[str, Any]
    vectors: dict[str, list[float]]
    parts: list[list[float]] = field(default_factory=list)
    """A memory's part vectors (one per sentence of a longer text; see `upsert_memories`)."""


@runtime_checkable
class Store(Protocol):
    """A memory store. Writes are durable when the call returns (flushed)."""

    @property
    def meta(self) -> StoreMeta: ...

    @property
    def location(self) -> str:
        """Human-readable place of the store (folder or URL), for messages."""
        ...

    @property
    def indexes_context(self) -> bool:
        """Whether the store has a place for context vectors (stores made before neighbour
        context have none until `cortex-tui reembed` rebuilds them)."""
        ...

    @property
    def indexes_parts(self) -> bool:
        """Whether the store has a place for part vectors (stores made before them have
        none until `cortex-tui reembed` rebuilds them)."""
        ...

    @property
    def archive(self) -> Store:
        """The turn archive (`cortex_tui/archive/`): every message of every captured
        turn, memory-shaped, searched through these same operations and kept apart from
        the memories (a view of this store: never closed on its own)."""
        ...

    def deferred_commits(self) -> AbstractContextManager[None]:
        """Writes inside are made durable together when the block ends (one flush per
        collection); a crash inside may lose any of them. For callers that can redo
        the whole batch (a spooled one)."""
        ...

    # memories
    def upsert_memories(
        self,
        memories: Sequence[Memory],
        vectors: Sequence[Vector],
        contexts: Sequence[IndexContext | None] | None = None,
        parts: Sequence[Parts] | None = None,
    ) -> None:
        """Insert or replace memories with their dense vectors and, for memories of a
        conversation, the context they are indexed with (lexical index derived from
        content, tags, speaker and context by the store). `parts`: per memory, the
        vectors of the sentences of a text that has several (empty for one that has
        not); dropped when the store has no place for them."""
        ...

    def update_memories(self, memories: Sequence[Memory], *, durable: bool = True) -> None:
        """Replace the payload of existing memories, keeping their vectors.

        Content changes are not allowed here (they need a new vector): use
        `upsert_memories`. `durable=False` skips the flush (the write is in the WAL and is
        flushed with the next durable write or on close): for access statistics, which
        recall updates on every call and which are not worth an fsync each.
        """
        ...

    def get_memories(self, ids: Sequence[str]) -> list[Memory]:
        """The memories that exist among `ids`, in the order of `ids`."""
        ...

    def get_vectors(self, ids: Sequence[str], *, context: bool = False) -> dict[str, list[float]]:
        """Stored dense vectors; `context=True` the context vectors (memories without
        one are absent)."""
        ...

    def get_parts(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        """Stored part vectors of the memories that have them."""
        ...

    def session_turn(self, session_id: str, before: int | None = None) -> list[Memory]:
        """The memories of the session's latest turn (before turn `before` when given),
        whatever their status: what was said stays said. Empty when there is none."""
        ...

    def find_ids_by_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        """Ids starting with `prefix` (at most `limit`), for short-id resolution."""
        ...

    def search_dense(self, vector: Vector, flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        """Cosine similarity search, filter applied inside the query, best first."""
        ...

    def search_ids(
        self, vector: Vector, flt: MemoryFilter, limit: int, *, context: bool = False
    ) -> list[tuple[str, float]]:
        """Ids and cosines of the memories whose own vectors (or, with `context`, context
        vectors) are nearest, best first, same filter semantics. Ids only: most of them are
        memories another search already brought, so payloads are read for the rest alone.
        Memories without a context vector are not found by their context, and a store
        without context vectors finds none."""
        ...

    def search_lexical(self, text: str, flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        """BM25 search over content (and tags), same filter semantics, best first.
        Returns [] when the text has no indexable term."""
        ...

    def search_lexical_ids(
        self, text: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        """`search_lexical`'s ids and scores alone, no payloads: for a caller that reads
        only some of them afterwards (the turn archive's channel)."""
        ...

    def lexical_scores(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """BM25 of the named memories for `text` (ids and scores only, no payloads): the
        lexical score of a candidate another channel found. Memories sharing no term
        with the text are absent."""
        ...

    def cosines(
        self, vector: Vector, ids: Sequence[str], *, context: bool = False
    ) -> dict[str, float]:
        """Cosines of the query with the named memories' own (or context) vectors,
        computed where the vectors are: ids and scores only. Memories without such a
        vector are absent."""
        ...

    def part_cosines(self, vector: Vector, ids: Sequence[str]) -> dict[str, float]:
        """The cosine of the query with the best-matching part of each named memory,
        computed where the vectors are. Memories without parts are absent."""
        ...

    def scroll_memories(
        self, flt: MemoryFilter, limit: int, offset: str | None = None
    ) -> tuple[list[Memory], str | None]:
        """A page of memories in id order and the offset of the next page (None at end).

        Vectors are not part of a page (a `Memory` has no place for them): use
        `get_vectors` with the page's ids."""
        ...

    def iter_memories(self, flt: MemoryFilter, batch: int = 256) -> Iterator[Memory]: ...

    def scan_memories(
        self, flt: MemoryFilter, fields: Sequence[str], batch: int = 1024
    ) -> Iterator[Mapping[str, Any]]:
        """Only `fields` of each memory, as stored (enums as values, times as RFC3339
        text): for views of the whole store, where parsing models costs the most."""
        ...

    def count_memories(self, flt: MemoryFilter) -> int: ...

    def newest_memory(self, flt: MemoryFilter) -> Memory | None:
        """The most recently created memory `flt` lets through."""
        ...

    def facet_memories(self, key: str, flt: MemoryFilter, limit: int = 100) -> dict[str, int]:
        """Counts per value of a keyword field (type, scope, project, tags, status...)."""
        ...

    def delete_memories(self, ids: Sequence[str]) -> None:
        """Hard delete (purge). Normal operations never call this."""
        ...

    # entities and relations
    def upsert_entities(self, entities: Sequence[Entity], vectors: Sequence[Vector]) -> None: ...

    def update_entities(self, entities: Sequence[Entity]) -> None:
        """Replace entity payloads keeping their name vectors (name unchanged)."""
        ...

    def get_entities(self, ids: Sequence[str]) -> list[Entity]: ...

    def all_entities(self) -> list[Entity]: ...

    def search_entities(self, vector: Vector, limit: int) -> list[ScoredEntity]: ...

    def delete_entities(self, ids: Sequence[str]) -> None: ...

    def upsert_relations(self, relations: Sequence[Relation]) -> None: ...

    def relations_of(self, entity_ids: Sequence[str], current_only: bool = True) -> list[Relation]:
        """Relations whose subject or object is one of `entity_ids`."""
        ...

    def all_relations(self) -> list[Relation]: ...

    def delete_relations(self, ids: Sequence[str]) -> None: ...

    # curation journal (undo log)
    def append_journal(self, entry: JournalEntry) -> None: ...

    def journal(self, limit: int = 50) -> list[JournalEntry]:
        """Most recent first."""
        ...

    def delete_journal(self, ids: Sequence[str]) -> None: ...

    # whole-store copies: backup, restore
    def points(self, collection: str) -> Iterator[StoredPoint]:
        """Every point of one of `COLLECTIONS`, in id order."""
        ...

    def put_points(self, collection: str, points: Sequence[StoredPoint]) -> None:
        """Write points as `points` gave them (lexical vectors derived anew); a context
        vector or parts are dropped when this store has no place for them."""
        ...

    def count_points(self, collection: str) -> int: ...

    # maintenance
    def optimize(self) -> None:
        """Compact everything now, whatever the layout (`cortex-tui optimize`): an older
        store's segments are rebuilt in this version's layout. Tens of seconds at 100k;
        maintenance only, never on a hook path."""
        ...

    def compact(self) -> bool:
        """Fold what was written since the last compaction into segments that open fast,
        when enough was (bounded work: seconds at 100k); False when nothing changed or
        the store keeps a layout that cannot compact in steps. It holds the whole
        process while it runs: the service calls it only once requests have stopped."""
        ...

    def close(self) -> None: ...
