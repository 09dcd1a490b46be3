"""What a store holds, counted: the stats and the day-by-day activity."""

from __future__ import annotations

from datetime import datetime, timedelta

from cortex_tui.models import ConflictStatus, MemoryStatus, Stats
from cortex_tui.overview.timeline import created_day, day_start
from cortex_tui.store.base import MemoryFilter, Store

TOP_ENTITIES = 10


def store_stats(store: Store) -> Stats:
    everything = MemoryFilter(current_only=False, statuses=None)
    current = MemoryFilter()
    total = store.count_memories(everything)
    entities = store.all_entities()
    busiest = sorted(entities, key=lambda e: (-len(e.memory_ids), e.name.casefold()))
    return Stats(
        total=total,
        current=store.count_memories(current),
        superseded=total - store.count_memories(MemoryFilter(statuses=None)),
        deleted=store.count_memories(
            MemoryFilter(current_only=False, statuses=[MemoryStatus.DELETED])
        ),
        active_conflicts=store.count_memories(
            current.model_copy(update={"conflict_statuses": [ConflictStatus.ACTIVE]})
        ),
        by_type=store.facet_memories("type", current),
        by_scope=store.facet_memories("scope", current),
        by_project=store.facet_memories("project", current),
        by_status=store.facet_memories("status", everything),
        entities=len(entities),
        relations=len(store.all_relations()),
        store=store.location,
        embedder=store.meta.embedder,
        dimension=store.meta.dimension,
        top_entities={e.name: len(e.memory_ids) for e in busiest[:TOP_ENTITIES] if e.memory_ids},
    )


def activity(store: Store, now: datetime, days: int) -> dict[str, int]:
    """Memories created per day over the last `days` days (oldest first, zeros kept), so
    a sparkline of it shows quiet days as gaps rather than hiding them. Every memory
    created counts, forgotten ones too; only the window's creation times are read."""
    start = (now - timedelta(days=days - 1)).date()
    counts = {(start + timedelta(days=i)).isoformat(): 0 for i in range(days)}
    window = MemoryFilter(
        current_only=False, statuses=None, created_from=day_start(start, now.tzinfo)
    )
    for payload in store.scan_memories(window, ("created_at",)):
        day = created_day(payload, now.tzinfo)
        if day in counts:
            counts[day] += 1
    return counts
