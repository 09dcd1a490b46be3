"""`LocalOverview`: the store seen whole — counts, the map, words, the timeline and a
day — as the Overview panes and `stats` read it, through the read guard."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from cortex_tui.engine.core import EngineCore
from cortex_tui.engine.limits import check_query
from cortex_tui.engine.protocol import MAX_DAYS
from cortex_tui.errors import InvalidInputError
from cortex_tui.models import MemoryType, RecallResponse, Stats
from cortex_tui.overview.counts import activity, store_stats
from cortex_tui.overview.models import DayMemories, MemoryMap, Timeline, WordCloud
from cortex_tui.overview.reader import Overview
from cortex_tui.recall.request import RecallRequest


class LocalOverview:
    def __init__(self, core: EngineCore, recall: Callable[[RecallRequest], RecallResponse]) -> None:
        """`recall`: the engine's, which places a query and its results on the map."""
        self._core = core
        self._recall = recall
        self._overview = Overview(core.store, core.embedder, core.clock)

    def stats(self) -> Stats:
        return store_stats(self._core.store)

    def activity(self, days: int = 30) -> dict[str, int]:
        _check_days(days)
        return activity(self._core.store, self._core.clock(), days)

    def memory_map(
        self,
        *,
        superseded: bool = False,
        query: str | None = None,
        top_k: int = 10,
        refit: bool = False,
    ) -> MemoryMap:
        if query is not None:
            check_query(query, self._core.settings.limits)
        return self._overview.memory_map(
            self._recall, superseded=superseded, query=query, top_k=top_k, refit=refit
        )

    def word_cloud(
        self, *, project: str | None = None, type: MemoryType | None = None, limit: int = 60
    ) -> WordCloud:
        core = self._core
        cloud = self._overview.word_cloud(
            project=core.projects.resolve(project), type=type, limit=limit
        )
        shown = [t for t in cloud.terms if not core.privacy.redact(t.term).changed]
        if len(shown) == len(cloud.terms):
            return cloud
        return cloud.model_copy(update={"terms": shown})

    def timeline(self, days: int = 90) -> Timeline:
        _check_days(days)
        return self._overview.timeline(days)

    def day(self, day: date, limit: int = 200) -> DayMemories:
        found = self._overview.day(day, limit)
        shown = self._core.shown
        return found.model_copy(
            update={
                "created": [shown(m) for m in found.created],
                "superseded": [shown(m) for m in found.superseded],
            }
        )


def _check_days(days: int) -> None:
    if not 1 <= days <= MAX_DAYS:
        raise InvalidInputError(f"days must be between 1 and {MAX_DAYS}, got {days}")
