"""The per-backend half of a store: the dozen point primitives a backend implements
(Edge and qdrant-client differ only in how they spell a point, a query or a condition),
and the state every store keeps. `store/backend.py` writes the `Store` operations once
over them.

Primitives never flush; each public write ends with one `_commit` (Edge: `flush()`), or,
inside `deferred_commits`, one per collection at the end of the batch.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic

from cortex_tui.store.base import StoredPoint, StoreMeta
from cortex_tui.store.filters import C, ConditionBuilder
from cortex_tui.store.lexical import SparseTerms
from cortex_tui.store.payload import point_ids
from cortex_tui.store.points import DENSE, Collection, Hit, Payload, PointData, QueryVector


@dataclass(slots=True)
class _Batch:
    """The collections written inside `deferred_commits` (None outside one): shared by a
    store and its views, so a batch spanning both flushes each collection once."""

    dirty: set[Collection] | None = None


class PointPrimitives(ABC, Generic[C]):
    """What a backend implements: the point primitives (`_upsert`, `_search`, ...), and
    the state every store keeps (its meta, which vectors it indexes, deferred commits)."""

    def __init__(
        self,
        meta: StoreMeta,
        location: str,
        build: ConditionBuilder[C],
        *,
        context: bool,
        parts: bool,
    ) -> None:
        self._meta = meta
        self._location = location
        self._build = build
        self._context = context
        self._parts = parts
        self._journal_lock = threading.Lock()
        self._batch = _Batch()
        self._owner = True
        """False in a view of another collection (`archive`): it never closes what it
        shares."""

    @property
    def meta(self) -> StoreMeta:
        return self._meta

    @contextmanager
    def deferred_commits(self) -> Iterator[None]:
        """Writes inside are made durable together on the way out: one flush per
        collection instead of one per write (a flush is most of a small write's cost).
        A crash inside may lose any of them, so only a caller that can redo them (a
        spooled batch) defers. Nested use joins the outer batch."""
        batch = self._batch
        if batch.dirty is not None:
            yield
            return
        batch.dirty = set()
        try:
            yield
        finally:
            dirty, batch.dirty = batch.dirty, None
            for coll in sorted(dirty):
                self._commit(coll)

    def _durable(self, coll: Collection) -> None:
        """End a public write: flush now, or at the end of the deferred batch."""
        if self._batch.dirty is None:
            self._commit(coll)
        else:
            self._batch.dirty.add(coll)

    @property
    def indexes_context(self) -> bool:
        return self._context

    @property
    def indexes_parts(self) -> bool:
        return self._parts

    @property
    def location(self) -> str:
        return self._location

    # --- primitives -------------------------------------------------------------------

    @abstractmethod
    def _upsert(self, coll: Collection, points: Sequence[PointData]) -> None: ...

    @abstractmethod
    def _retrieve(
        self, coll: Collection, ids: Sequence[str], fields: Sequence[str] | None = None
    ) -> list[Payload]:
        """Payloads (all fields, or only `fields`) of the points that exist among `ids`."""

    @abstractmethod
    def _dense_vectors(
        self, coll: Collection, ids: Sequence[str], using: str = DENSE
    ) -> dict[str, list[float]]:
        """The `using` vectors of the points among `ids` that have one."""

    @abstractmethod
    def _part_vectors(self, coll: Collection, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        """The part vectors of the points among `ids` that have parts."""

    @abstractmethod
    def _search(
        self,
        coll: Collection,
        using: str,
        vector: QueryVector,
        cond: C | None,
        limit: int,
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The `limit` nearest points with their payloads (all fields, only `fields`, or
        none: `IDS_ONLY`). On `PARTS` a point scores by its best part."""

    @abstractmethod
    def _scroll(
        self,
        coll: Collection,
        cond: C | None,
        limit: int,
        offset: str | None,
        fields: Sequence[str] | None = None,
    ) -> tuple[list[Payload], str | None]:
        """A page in id order (all fields, or only `fields`) and the id the next page
        starts at."""

    @abstractmethod
    def _scroll_points(
        self, coll: Collection, limit: int, offset: str | None
    ) -> tuple[list[StoredPoint], str | None]:
        """A page of whole points (payload and dense vectors) in id order, and the id the
        next page starts at."""

    @abstractmethod
    def _latest(
        self, coll: Collection, key: str, limit: int, cond: C | None = None
    ) -> list[Payload]:
        """The `limit` points (among those `cond` lets through) with the largest integer
        or datetime `key`, largest first."""

    @abstractmethod
    def _count(self, coll: Collection, cond: C | None) -> int: ...

    @abstractmethod
    def _facet(self, coll: Collection, key: str, cond: C | None, limit: int) -> dict[str, int]: ...

    @abstractmethod
    def _overwrite_payloads(self, coll: Collection, points: Sequence[PointData]) -> None: ...

    @abstractmethod
    def _set_sparse(self, coll: Collection, vectors: Sequence[tuple[str, SparseTerms]]) -> None:
        """Replace the lexical vectors of existing points, keeping their dense ones."""

    @abstractmethod
    def _delete(self, coll: Collection, ids: Sequence[str]) -> None: ...

    @abstractmethod
    def _commit(self, coll: Collection) -> None:
        """Make the writes to `coll` durable."""

    @abstractmethod
    def _save_meta(self, meta: StoreMeta) -> None:
        """Replace the stored `StoreMeta` (atomically)."""

    @abstractmethod
    def optimize(self) -> None: ...

    @abstractmethod
    def compact(self) -> bool: ...

    @abstractmethod
    def close(self) -> None: ...

    # --- what every public write ends with -------------------------------------------

    def _scroll_all(self, coll: Collection, cond: C | None) -> Iterator[Payload]:
        offset: str | None = None
        while True:
            page, offset = self._scroll(coll, cond, 256, offset)
            yield from page
            if offset is None:
                return

    def _write(self, coll: Collection, points: Sequence[PointData]) -> None:
        if points:
            self._upsert(coll, points)
            self._durable(coll)

    def _delete_ids(self, coll: Collection, ids: Sequence[str]) -> None:
        valid = point_ids(ids)
        if valid:
            self._delete(coll, valid)
            self._durable(coll)
