"""The `Engine` protocol: the one seam every surface (CLI, hooks, service, TUI) talks to.

Two implementations share it: `LocalEngine` in the calling process, and `RemoteEngine`,
a client of the local service with the same methods and the same pydantic models. A
surface that types against this protocol works unchanged against either.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any, Protocol

from cortex_tui.config import RecallWeights
from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.graph.views import EntityMatch, EntityPage, Neighbourhood
from cortex_tui.lifecycle.report import LifecycleReport
from cortex_tui.maintenance.backup import BackupReport
from cortex_tui.models import (
    Entity,
    EntityType,
    Explanation,
    ImportReport,
    Memory,
    MemoryDraft,
    MemoryPage,
    MemoryType,
    RecallResponse,
    Scope,
    Stats,
    WriteResult,
)
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, Vitals, WordCloud
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter
from cortex_tui.write.turns import CaptureReport


class EntityGraph(Protocol):
    """The entity graph as a person curates it; `ref` may be an id, id prefix or name."""

    def list_entities(
        self, type: EntityType | None = None, limit: int = 50, offset: int = 0
    ) -> EntityPage: ...

    def get(self, ref: str) -> Entity: ...

    def search(self, text: str, limit: int = 10) -> list[EntityMatch]: ...

    def neighbourhood(self, entity_id: str, hops: int = 2) -> Neighbourhood: ...

    def merge(self, source_id: str, into_id: str) -> Entity: ...

    def add_alias(self, entity_id: str, alias: str) -> Entity: ...

    def rename(self, entity_id: str, name: str) -> Entity: ...


class Engine(Protocol):
    @property
    def graph(self) -> EntityGraph: ...

    def now(self) -> datetime:
        """The engine's clock (frozen in tests and screenshots); ages are measured from it."""
        ...

    def remember(self, draft: MemoryDraft) -> WriteResult: ...

    def capture(
        self,
        text: str,
        *,
        project: str | None = None,
        session_id: str | None = None,
        source: str = "capture",
    ) -> CaptureReport: ...

    def recall(self, request: RecallRequest) -> RecallResponse: ...

    def explain(self, request: RecallRequest, memory_id: str) -> Explanation: ...

    def get(self, memory_id: str) -> Memory:
        """By full id or an unambiguous prefix."""
        ...

    def resolve_id(self, prefix: str) -> str: ...

    def list_memories(
        self, flt: MemoryFilter, limit: int = 50, offset: str | None = None
    ) -> MemoryPage: ...

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        tags: list[str] | None = None,
        project: str | None = None,
        confidence: float | None = None,
    ) -> Memory:
        """A new version superseding the old one; the old keeps its content and validity."""
        ...

    def forget(self, memory_id: str) -> Memory: ...

    def purge(self) -> int:
        """Remove deleted and archived memories for good."""
        ...

    def history(self, memory_id: str) -> list[Memory]:
        """The version chain containing the memory, oldest first."""
        ...

    def restore(self, memory_id: str) -> Memory: ...

    def conflicts(self) -> list[ConflictGroup]: ...

    def resolve(self, group_id: str, keep_id: str) -> Memory: ...

    def merge(self, group_id: str, content: str) -> Memory: ...

    def dismiss(self, group_id: str) -> list[Memory]: ...

    def undo(self, count: int = 1) -> list[JournalEntry]: ...

    def lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Unless a dry run, a backup is taken first (`backup.before_lifecycle`)."""
        ...

    def backup(self, path: str | None = None) -> BackupReport:
        """A consistent copy of the whole store in one file: at `path` (absolute; a
        folder gets a file named by time), else in the backups folder."""
        ...

    def weight_profiles(self) -> dict[str, RecallWeights]:
        """ "default" (recall.weights) first, then the named profiles of the config."""
        ...

    def save_weight_profile(self, name: str, weights: RecallWeights) -> None:
        """Write the profile to config.toml and use it from now on."""
        ...

    def stats(self) -> Stats: ...

    def activity(self, days: int = 30) -> dict[str, int]:
        """Memories created per day (ISO date -> count) over the last `days` days."""
        ...

    def memory_map(
        self,
        *,
        superseded: bool = False,
        query: str | None = None,
        top_k: int = 10,
        refit: bool = False,
    ) -> MemoryMap:
        """The store's vectors on their two principal axes (a fixed sample above 20,000),
        clustered and labelled; with `query`, where it and its top results lie."""
        ...

    def word_cloud(
        self, *, project: str | None = None, type: MemoryType | None = None, limit: int = 60
    ) -> WordCloud:
        """The most frequent terms of current memories; entities and tags as phrases."""
        ...

    def timeline(self, days: int = 90) -> Timeline:
        """Created, superseded and captured per day over the last `days` days."""
        ...

    def day(self, day: date, limit: int = 200) -> DayMemories:
        """The memories created, and the versions superseded, on one day."""
        ...

    def vitals(self) -> Vitals:
        """Store size, spool, last capture, the hooks' last day, embedder and LLM, and
        each concern with its fix: cheap enough to ask every few seconds."""
        ...

    def export(self) -> Iterator[str]: ...

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport: ...

    def health(self, *, deep: bool = False) -> dict[str, Any]:
        """Whether the store and the embedder answer; `deep` adds `checks`: every point
        read back, the spool, the home's permissions and the newest backup
        (`maintenance/checkup.py`)."""
        ...

    def close(self) -> None: ...
