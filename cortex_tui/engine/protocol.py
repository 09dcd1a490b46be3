"""The `Engine` protocol: the one seam every surface (CLI, hooks, service, TUI) talks to.

Two implementations share it: `LocalEngine` in the calling process, and later a thin
client of the local service with the same methods and the same pydantic models.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from cortex_tui.engine.curation import ConflictGroup
from cortex_tui.models import (
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
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import JournalEntry, MemoryFilter


class Engine(Protocol):
    def remember(self, draft: MemoryDraft) -> WriteResult: ...

    def recall(self, request: RecallRequest) -> RecallResponse: ...

    def explain(self, request: RecallRequest, memory_id: str) -> Explanation: ...

    def get(self, memory_id: str) -> Memory:
        """By full id or an unambiguous prefix."""
        ...

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

    def stats(self) -> Stats: ...

    def export(self) -> Iterator[str]: ...

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport: ...

    def health(self) -> dict[str, object]: ...

    def close(self) -> None: ...
