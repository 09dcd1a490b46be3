"""File sync on a real store: a temporary home, the hashing embedder, real files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cortex_tui.config import load_settings
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.models import Memory, MemoryStatus
from cortex_tui.store.base import MemoryFilter
from cortex_tui.sync.deliver import Delivery, deliver
from cortex_tui.sync.run import SyncReport, sync_paths
from tests.conftest import make_engine


@dataclass
class Syncer:
    """`cortex-tui sync --no-daemon` as functions, and a look at what the store holds."""

    home: Path

    def sync(
        self,
        *paths: Path,
        project: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        report = sync_paths(list(paths), self.home, project=project)
        self.deliver(progress)
        return report

    def deliver(self, progress: Callable[[int, int], None] | None = None) -> Delivery:
        settings = load_settings(self.home)
        return deliver(settings, daemon=False, progress=progress)

    def memories(self, *, everything: bool = False) -> list[Memory]:
        """Memories read from files (`sync:` sources); current and active unless
        `everything` (every version, every status)."""
        flt = (
            MemoryFilter(source_prefix="sync:", current_only=False, statuses=None)
            if everything
            else MemoryFilter(source_prefix="sync:")
        )
        engine = make_engine(self.home, HashingEmbedder())
        try:
            return sorted(engine.store.iter_memories(flt), key=lambda m: m.content)
        finally:
            engine.close()

    def contents(self) -> list[str]:
        return [m.content for m in self.memories()]

    def history(self, content: str) -> list[str]:
        (memory,) = [m for m in self.memories() if m.content == content]
        engine = make_engine(self.home, HashingEmbedder())
        try:
            return [m.content for m in engine.history(memory.id)]
        finally:
            engine.close()

    def deleted(self) -> list[str]:
        return sorted(
            m.content for m in self.memories(everything=True) if m.status is MemoryStatus.DELETED
        )


@pytest.fixture
def syncer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Syncer:
    monkeypatch.setenv("CORTEX_EMBEDDER__KIND", "hashing")
    home = tmp_path / "home"
    monkeypatch.setenv("CORTEX_HOME", str(home))
    return Syncer(home)
