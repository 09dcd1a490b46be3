"""Project names as people give them, and memories filed under a folder's name moved to
their repository's key.

A hook files memories under its repository's key (`github.com/acme/api`); a person at
the CLI, or a model through MCP, says `api`. A short name that is no stored project's key
stands for the one stored project it names, so `--project api` finds the repository's
memories; when two repositories share the name, the name is taken as it is (nothing is
guessed). Earlier versions filed memories under the git root's folder name: the first
time a hook meets the repository, they move to its key, journalled (undo puts them back).
"""

from __future__ import annotations

import time
from datetime import datetime

from cortex_tui.curation import journal
from cortex_tui.models import Memory, MemoryStatus
from cortex_tui.project_keys import is_repository_key, readable
from cortex_tui.store.base import MemoryFilter, Store

ADOPT_ACTION = "adopt project"
FACET_LIMIT = 10_000
KNOWN_SECONDS = 10.0


class ProjectNames:
    """The store's project keys, as the names people use for them."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._adopted: set[tuple[str, str]] = set()
        self._known: tuple[float, frozenset[str]] | None = None

    def resolve(self, name: str | None) -> str | None:
        """The key `name` stands for: itself when it is a key (or names no stored
        project, or several), else the one stored project whose short name it is."""
        if not name or is_repository_key(name):
            return name
        stored = self._stored()
        if name in stored:
            return name
        wanted = name.casefold()
        named = [key for key in stored if readable(key).casefold() == wanted]
        return named[0] if len(named) == 1 else name

    def adopt(self, key: str, legacy: str, now: datetime) -> int:
        """Move every version of every memory filed under the folder name `legacy` to
        the repository's `key`, in one journal entry; how many moved. Asked once per
        pair in a process: after the move there is nothing left under `legacy`."""
        if key == legacy or (key, legacy) in self._adopted:
            return 0
        everything = MemoryFilter(
            project=legacy, project_only=True, current_only=False, statuses=list(MemoryStatus)
        )
        filed = list(self._store.iter_memories(everything))
        self._adopted.add((key, legacy))
        if not filed:
            return 0
        journal.record(
            self._store,
            ADOPT_ACTION,
            now,
            before=filed,
            note=f"{legacy} → {key}",
            memory_fields=["project"],
        )
        self._store.update_memories([_filed_under(m, key) for m in filed])
        self._known = None
        return len(filed)

    def _stored(self) -> frozenset[str]:
        """The projects the store files memories under, counted again after
        `KNOWN_SECONDS` (a capture filing a project's first memory under a short name
        costs a count of the store's projects, not one a write)."""
        now = time.monotonic()
        if self._known is None or now - self._known[0] > KNOWN_SECONDS:
            facet = self._store.facet_memories("project", MemoryFilter(), limit=FACET_LIMIT)
            self._known = (now, frozenset(facet))
        return self._known[1]


def _filed_under(memory: Memory, key: str) -> Memory:
    return memory.model_copy(update={"project": key})
