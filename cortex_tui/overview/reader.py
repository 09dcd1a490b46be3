"""The overview operations: the map, the word cloud, the timeline and one day's memories.

Each reads only the fields it needs (`Store.scan_memories`) and hands them to
`cortex_tui.overview`. Above `SAMPLE_SIZE` memories the map and the word cloud work on
a fixed sample (the smallest ids, read first in the store's order: the cost follows the
sample, not the store), and say so.

The map keeps its axes and every point's coordinates between calls: a second look at
an unchanged store fetches no vectors, and memories added since land where their
vectors put them on the same axes. The axes are fitted again when a fifth of the points
drawn are new to them, or when asked.

Answers are kept until the store changes (`_revision`: the memory count and the newest
journal entry, both read in a few milliseconds; every edit, resolve, forget or undo
journals, every new memory counts), so the panes can ask again each time they are
shown, and a map of 100,000 memories costs its seconds once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import date, datetime, timedelta
from itertools import islice
from typing import Any, TypeVar, cast

import numpy as np

from cortex_tui.embed.base import Embedder
from cortex_tui.models import Memory, MemoryType, RecallResponse
from cortex_tui.overview.clusters import cluster_count, distinctive_terms, kmeans
from cortex_tui.overview.models import (
    DayMemories,
    MapCluster,
    MapHit,
    MemoryMap,
    Timeline,
    WordCloud,
)
from cortex_tui.overview.projection import SAMPLE_SIZE, Matrix, Projection, fit
from cortex_tui.overview.terms import TermCounter, words
from cortex_tui.overview.timeline import (
    FIELDS as DAY_FIELDS,
)
from cortex_tui.overview.timeline import day_counts, day_start, is_live
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter, Store

REFIT_SHARE = 0.2
"""Refit the axes when this share of the points drawn were not part of the last fit."""
DAY_LIMIT = 200
VECTOR_BATCH = 1024
MAP_FIELDS = ("id", "type", "project", "conflict_status", "valid_to", "content")
LABELLED = 2000
"""Cluster labels are counted on this many of the points drawn: a few hundred memories
a cluster is plenty for the three terms that name it, at a tenth of the full sample's
cost."""
WORD_FIELDS = ("id", "content", "tags", "entity_ids")
CACHED_ANSWERS = 16

Recall = Callable[[RecallRequest], RecallResponse]
Revision = tuple[int, str | None, date]
A = TypeVar("A")


class Overview:
    """The store as a whole, for the Map, Words and Timeline panes."""

    def __init__(self, store: Store, embedder: Embedder, now: Callable[[], datetime]) -> None:
        self._store = store
        self._embedder = embedder
        self._now = now
        self._projection: Projection | None = None
        self._coords: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()
        self._answers: OrderedDict[tuple[Any, ...], tuple[Revision, object]] = OrderedDict()

    def _revision(self) -> Revision:
        newest = self._store.journal(limit=1)
        return (
            self._store.count_memories(_everything()),
            newest[0].id if newest else None,
            self._now().date(),
        )

    def _cached(self, key: tuple[Any, ...], build: Callable[[], A]) -> A:
        """`build()`'s answer, or the one kept for `key` if the store has not changed."""
        revision = self._revision()
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None and kept[0] == revision:
                self._answers.move_to_end(key)
                return cast(A, kept[1])
        answer = build()
        with self._lock:
            self._answers[key] = (revision, answer)
            while len(self._answers) > CACHED_ANSWERS:
                self._answers.popitem(last=False)
        return answer

    # --- the map ------------------------------------------------------------------------

    def memory_map(
        self,
        recall: Recall,
        *,
        superseded: bool = False,
        query: str | None = None,
        top_k: int = 10,
        refit: bool = False,
        sample_size: int = SAMPLE_SIZE,
    ) -> MemoryMap:
        """Current memories (and, with `superseded`, the versions they replaced) on two
        axes; with `query`, where it and its `top_k` recall results lie."""
        if refit:
            with self._lock:
                self._projection = None
                for key in [key for key in self._answers if key[0] == "map"]:
                    del self._answers[key]
        answer, projection = self._cached(
            ("map", superseded, sample_size), lambda: self._map(superseded, sample_size)
        )
        if query and projection is not None and answer.ids:
            answer = self._with_query(answer, projection, recall, query, top_k)
        return answer

    def _map(self, superseded: bool, sample_size: int) -> tuple[MemoryMap, Projection | None]:
        """The map and the axes its points were placed on (a query is placed on them)."""
        flt = MemoryFilter(current_only=not superseded)
        chosen = list(islice(self._store.scan_memories(flt, MAP_FIELDS), sample_size))
        drawn = [str(p["id"]) for p in chosen]
        with self._lock:
            coords = self._coordinates(drawn)
            projection = self._projection
        points = np.array([coords[memory_id] for memory_id in drawn], np.float32).reshape(-1, 2)
        total = len(drawn) if len(drawn) < sample_size else self._store.count_memories(flt)
        drawn_map = MemoryMap(
            total=total,
            ids=drawn,
            x=[round(float(value), 5) for value in points[:, 0]],
            y=[round(float(value), 5) for value in points[:, 1]],
            types=[str(p["type"]) for p in chosen],
            projects=[p.get("project") for p in chosen],
            conflicted=[p.get("conflict_status") == "active" for p in chosen],
            superseded=[p.get("valid_to") is not None for p in chosen],
            clusters=_clusters(points, [str(p.get("content") or "") for p in chosen]),
            explained=projection.explained if projection else (0.0, 0.0),
            fitted_on=projection.fitted_on if projection else 0,
        )
        return drawn_map, projection

    def _coordinates(self, ids: list[str]) -> dict[str, tuple[float, float]]:
        new = [memory_id for memory_id in ids if memory_id not in self._coords]
        stale = self._projection is None or len(new) > REFIT_SHARE * len(ids)
        if ids and stale:
            vectors = self._vectors(ids)
            self._projection = fit(vectors)
            self._coords = _placed(ids, self._projection.apply(vectors))
        elif new and self._projection is not None:
            self._coords.update(_placed(new, self._projection.apply(self._vectors(new))))
        return self._coords

    def _vectors(self, ids: list[str]) -> Matrix:
        rows = np.zeros((len(ids), self._store.meta.dimension), np.float32)
        for start in range(0, len(ids), VECTOR_BATCH):
            batch = ids[start : start + VECTOR_BATCH]
            found = self._store.get_vectors(batch)
            for offset, memory_id in enumerate(batch, start):
                vector = found.get(memory_id)
                if vector is not None:
                    rows[offset] = vector
        return rows

    def _with_query(
        self, answer: MemoryMap, projection: Projection, recall: Recall, query: str, top_k: int
    ) -> MemoryMap:
        response = recall(RecallRequest(query=query, limit=top_k, update_access=False))
        ids = [result.memory.id for result in response.results]
        placed = projection.apply(self._vectors(ids))
        here = projection.apply(np.asarray([self._embedder.embed_query(query)], np.float32))
        hits = [
            MapHit(
                id=result.memory.id, rank=result.rank, x=float(x), y=float(y), score=result.score
            )
            for result, (x, y) in zip(response.results, placed, strict=True)
        ]
        return answer.model_copy(
            update={
                "query": query,
                "query_x": float(here[0, 0]),
                "query_y": float(here[0, 1]),
                "hits": hits,
            }
        )

    # --- words --------------------------------------------------------------------------

    def word_cloud(
        self,
        *,
        project: str | None = None,
        type: MemoryType | None = None,
        limit: int = 60,
        sample_size: int = SAMPLE_SIZE,
    ) -> WordCloud:
        """The most frequent terms of the current memories (of one project and type)."""
        return self._cached(
            ("words", project, type, limit, sample_size),
            lambda: self._words(project, type, limit, sample_size),
        )

    def _words(
        self, project: str | None, type: MemoryType | None, limit: int, sample_size: int
    ) -> WordCloud:
        flt = MemoryFilter(project=project, project_only=project is not None)
        if type is not None:
            flt = flt.model_copy(update={"types": [type]})
        names = {entity.id: entity.name for entity in self._store.all_entities()}
        counter = TermCounter()
        for payload in islice(self._store.scan_memories(flt, WORD_FIELDS), sample_size):
            entities = [names[e] for e in payload.get("entity_ids") or () if e in names]
            counter.add(str(payload.get("content") or ""), entities, payload.get("tags") or ())
        counted = counter.memories
        total = counted if counted < sample_size else self._store.count_memories(flt)
        projects = sorted(self._store.facet_memories("project", MemoryFilter(), limit=1000))
        return WordCloud(
            memories=total, counted=counted, terms=counter.top(limit), projects=projects
        )

    # --- days ---------------------------------------------------------------------------

    def timeline(self, days: int) -> Timeline:
        """Created, superseded and captured per day over the last `days` days: only the
        memories of that window are read."""
        return self._cached(("timeline", days), lambda: self._timeline(days))

    def _timeline(self, days: int) -> Timeline:
        now = self._now()
        zone = now.tzinfo
        first = day_start(now.date() - timedelta(days=days - 1), zone)
        created = self._store.scan_memories(_everything(created_from=first), DAY_FIELDS)
        ended = self._store.scan_memories(_everything(ended_from=first), DAY_FIELDS)
        return Timeline(days=day_counts(created, ended, now.date(), days, zone))

    def day(self, day: date, limit: int = DAY_LIMIT) -> DayMemories:
        """What was created and what was superseded on `day`, oldest first."""
        zone = self._now().tzinfo
        start, end = day_start(day, zone), day_start(day + timedelta(days=1), zone)
        created = self._live_ids(_everything(created_from=start, created_until=end))
        ended = self._live_ids(_everything(ended_from=start, ended_until=end), superseded=True)
        return DayMemories(
            day=day.isoformat(),
            created=self._oldest_first(created[:limit], lambda m: m.created_at),
            superseded=self._oldest_first(ended[:limit], lambda m: m.valid_to or m.created_at),
            more=len(created) > limit or len(ended) > limit,
        )

    def _live_ids(self, flt: MemoryFilter, *, superseded: bool = False) -> list[str]:
        """Ids of the memories `flt` lets through that are not deleted (and, with
        `superseded`, that a newer version replaced: validity also ends otherwise)."""
        return [
            str(p["id"])
            for p in self._store.scan_memories(flt, DAY_FIELDS)
            if is_live(p) and (p.get("superseded_by_id") or not superseded)
        ]

    def _oldest_first(self, ids: list[str], when: Callable[[Memory], datetime]) -> list[Memory]:
        return sorted(self._store.get_memories(ids), key=lambda memory: (when(memory), memory.id))


def _everything(**window: datetime) -> MemoryFilter:
    """Every version in any status, within the `created_*` / `ended_*` window given."""
    return MemoryFilter(current_only=False, statuses=None, **window)


def _placed(ids: list[str], coords: Matrix) -> dict[str, tuple[float, float]]:
    return {memory_id: (float(x), float(y)) for memory_id, (x, y) in zip(ids, coords, strict=True)}


def _clusters(points: Matrix, contents: list[str]) -> list[MapCluster]:
    k = cluster_count(len(points))
    if not k:
        return []
    centres, assigned = kmeans(points, k)
    terms = [set(words(content)) for content in contents[:LABELLED]]
    labelled = assigned[:LABELLED]
    found = []
    for cluster, (x, y) in enumerate(centres):
        size = int(np.count_nonzero(assigned == cluster))
        if size:
            inside = [terms[index] for index in np.flatnonzero(labelled == cluster)]
            terms_of = distinctive_terms(inside, terms)
            found.append(MapCluster(x=float(x), y=float(y), size=size, terms=terms_of))
    return found
