"""The `Engine` protocol: the one seam every surface (CLI, hooks, service, TUI) talks to.

Two implementations share it: `LocalEngine` in the calling process, and later a thin
client of the local service with the same methods and the same pydantic models.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

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
from cortex_tui.store.base import MemoryFilter


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

    def purge(self) -> int: ...

    def stats(self) -> Stats: ...

    def export(self) -> Iterator[str]: ...

    def import_lines(self, lines: Iterable[str], *, skip_invalid: bool = False) -> ImportReport: ...

    def health(self) -> dict[str, object]: ...

    def close(self) -> None: ...
