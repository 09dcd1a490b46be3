"""The embedded default store: Qdrant Edge (Qdrant's Rust engine in-process).

Layout of a store folder (`$CORTEX_HOME/store/`):

    .lock            flock of the owning process, holding its pid (see `lock.py`)
    meta.json        `StoreMeta`: which embedder made the vectors (written last, atomically)
    integrity.json   what was written: points per shard, the journal's newest entry, a
                     write under way; checked on open (`integrity.py`)
    memories/        shard: dense "dense" and "context" (cosine), multivector "parts"
                     (cosine, best part) + sparse "lexical" (IDF) + payload
    entities/        shard: dense "dense" (the entity name) + payload
    relations/       shard: payload only
    journal/         shard: payload only

Edge has no named collections, so each collection is its own shard; what each shard
looks like on disk (vectors, payload indexes, compaction) is `edge_layout.py`.
"""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar, cast

import qdrant_edge as qe
from pydantic import ValidationError

from cortex_tui.config import COMPACT_AFTER
from cortex_tui.errors import StoreDamagedError, StoreError
from cortex_tui.models import utcnow
from cortex_tui.private import open_private, private_dir
from cortex_tui.store.backend import QdrantStore
from cortex_tui.store.base import StoredPoint, StoreMeta
from cortex_tui.store.edge_layout import MEMORY_VECTORS, payload_indexes, shard_config
from cortex_tui.store.filters import JOURNAL_ORDER_FIELD, Between
from cortex_tui.store.integrity import (
    Integrity,
    Promise,
    broken_promises,
    damaged,
    looks_damaged,
)
from cortex_tui.store.lexical import LEXICAL_VERSION, SparseTerms
from cortex_tui.store.lock import StoreLock
from cortex_tui.store.points import (
    CONTEXT,
    DENSE,
    LEXICAL,
    PARTS,
    RECORDS,
    Collection,
    Hit,
    Payload,
    PointData,
    QueryVector,
    dense_only,
    parts_only,
    require_embedder,
)

META_NAME = "meta.json"
_SALVAGE_PAGE = 256

EdgeCondition = qe.FieldCondition | qe.IsEmptyCondition | qe.HasIdCondition | qe.Filter


class EdgeConditions:
    """`ConditionBuilder` for Edge's filter classes."""

    def match_value(self, key: str, value: str) -> EdgeCondition:
        return qe.FieldCondition(key, match=qe.MatchValue(value))

    def match_any(self, key: str, values: Sequence[str]) -> EdgeCondition:
        return qe.FieldCondition(key, match=qe.MatchAny(list(values)))

    def match_text(self, key: str, text: str) -> EdgeCondition:
        return qe.FieldCondition(key, match=qe.MatchText(text))

    def match_prefix(self, key: str, prefix: str) -> EdgeCondition:
        return qe.FieldCondition(key, match=qe.MatchPrefix(prefix))

    def is_empty(self, key: str) -> EdgeCondition:
        return qe.IsEmptyCondition(key)

    def has_id(self, ids: Sequence[str]) -> EdgeCondition:
        return qe.HasIdCondition(set(ids))

    def datetime_range(self, key: str, bounds: Between) -> EdgeCondition:
        return qe.FieldCondition(
            key,
            range=qe.RangeDateTime(gt=bounds.gt, gte=bounds.gte, lt=bounds.lt, lte=bounds.lte),
        )

    def below(self, key: str, value: int) -> EdgeCondition:
        return qe.FieldCondition(key, range=qe.RangeFloat(lt=value))

    def combine(
        self,
        must: Sequence[EdgeCondition] = (),
        should: Sequence[EdgeCondition] = (),
        must_not: Sequence[EdgeCondition] = (),
    ) -> EdgeCondition:
        return qe.Filter(
            must=list(must) or None, should=list(should) or None, must_not=list(must_not) or None
        )


def _open_shard(
    path: Path, coll: Collection, dimension: int, compact_after: int
) -> tuple[qe.EdgeShard, bool]:
    """Load (or create) one shard, and whether it has this version's layout (`compact`
    relies on it); one whose files no longer load is damage."""
    exists = path.is_dir() and any(path.iterdir())
    try:
        if exists:
            shard, current = _load_shard(path, coll, dimension, compact_after)
        else:
            config = shard_config(coll, dimension, compact_after=compact_after)
            shard, current = qe.EdgeShard.create(str(path), config), True
    except Exception as exc:  # Edge raises bare exceptions
        if exists:
            raise damaged(str(path.parent), f"its {coll} do not load ({exc})") from None
        raise StoreError(f"cannot create the {coll} of the store at {path.parent}: {exc}") from None
    try:
        wanted = payload_indexes(coll)
        missing = wanted.keys() - shard.info().payload_schema.keys()
        for field in sorted(missing):
            shard.update(qe.UpdateOperation.create_field_index(field, wanted[field]))
        if missing:
            shard.flush()
    except Exception as exc:  # Edge raises bare exceptions
        raise StoreError(f"cannot open the {coll} of the store at {path.parent}: {exc}") from None
    return shard, current


def _load_shard(
    path: Path, coll: Collection, dimension: int, compact_after: int
) -> tuple[qe.EdgeShard, bool]:
    """Load a shard with this version's layout: Edge keeps the layout it is given, and
    its next `optimize()` moves an older shard's segments into it (vectors to disk, no
    HNSW graph). A shard whose vectors differ (a memories shard from before part or
    context vectors) is loaded with them; one that fits none is loaded as it is, and is
    not compacted by the service (its own layout might build an HNSW graph for minutes)."""
    layouts = [shard_config(coll, dimension, compact_after=compact_after)]
    if coll in RECORDS:
        layouts += [
            shard_config(coll, dimension, vectors=older, compact_after=compact_after)
            for older in MEMORY_VECTORS[1:]
        ]
    for layout in layouts:
        try:
            return qe.EdgeShard.load(str(path), layout), True
        except Exception as exc:  # Edge raises bare exceptions
            if "incompatible" not in str(exc):
                raise
    return qe.EdgeShard.load(str(path)), False


def read_meta(path: Path) -> StoreMeta | None:
    file = path / META_NAME
    try:
        return StoreMeta.model_validate_json(file.read_bytes())
    except FileNotFoundError:
        return None
    except ValidationError as exc:
        raise StoreError(f"{file} is damaged ({exc.errors()[0]['msg']}); restore it") from None


def write_meta(path: Path, meta: StoreMeta) -> None:
    """Temp file + fsync + rename + fsync of the folder: a crash leaves the old file or
    the new one, never a torn one."""
    file = path / META_NAME
    temp = path / f".{META_NAME}.tmp"
    with open_private(temp, "w") as out:
        out.write(meta.model_dump_json(indent=2))
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, file)
    folder = os.open(path, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


P = ParamSpec("P")
R = TypeVar("R")


def _reads(
    read: Callable[Concatenate[EdgeStore, Collection, P], R],
) -> Callable[Concatenate[EdgeStore, Collection, P], R]:
    """A read that fails on damaged files raises `StoreDamagedError` naming the
    collection and the way out, not Edge's bare decoding error."""

    @functools.wraps(read)
    def guarded(store: EdgeStore, coll: Collection, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return read(store, coll, *args, **kwargs)
        except Exception as exc:
            if isinstance(exc, StoreError) or not looks_damaged(exc):
                raise
            raise damaged(store.location, f"reading its {coll} failed ({exc})") from None

    return guarded


class EdgeStore(QdrantStore[EdgeCondition]):
    """A store in a local folder, owned by one process at a time."""

    def __init__(
        self,
        path: Path,
        meta: StoreMeta,
        shards: Mapping[Collection, qe.EdgeShard],
        lock: StoreLock,
        integrity: Integrity,
        *,
        compacts: bool = True,
    ) -> None:
        memories = shards[Collection.MEMORIES]
        super().__init__(
            meta,
            str(path),
            EdgeConditions(),
            context=_has_vector(memories, CONTEXT, meta.dimension),
            parts=_has_vector(memories, PARTS, meta.dimension),
        )
        self._shards = dict(shards)
        self._lock = lock
        self._integrity = integrity
        self._compacts = compacts

    @classmethod
    def open(
        cls,
        path: Path,
        embedder_name: str,
        dimension: int,
        *,
        check_embedder: bool = True,
        verify: bool = True,
        compact_after: int = COMPACT_AFTER,
    ) -> EdgeStore:
        """Open the store at `path`, creating it when absent.

        `check_embedder=False` opens a store built by another embedder as it is (its
        `meta` tells which): only the re-embed migration reads such a store.
        `verify=False` opens a store whose files no longer hold what was written to them
        (`integrity.py`) instead of raising `StoreDamagedError`: for `repair`, which
        copies out what is readable. `compact_after`: see `shard_config`.
        """
        private_dir(path)
        lock = StoreLock.acquire(path)
        shards: dict[Collection, qe.EdgeShard] = {}
        current = True
        try:
            meta = read_meta(path)
            if meta is not None and check_embedder:
                require_embedder(meta, embedder_name, dimension, str(path))
            fresh = meta is None
            if meta is None:
                meta = StoreMeta(
                    embedder=embedder_name,
                    dimension=dimension,
                    created_at=utcnow(),
                    lexical_version=LEXICAL_VERSION,
                )
            for coll in Collection:
                shards[coll], fits = _open_shard(
                    path / coll.value, coll, meta.dimension, compact_after
                )
                current = current and fits
            if fresh and shards[Collection.MEMORIES].info().points_count:
                # Only meta.json says which embedder made the vectors: never guess.
                raise StoreError(f"store at {path} has memories but no {META_NAME}; restore it")
            if fresh:
                write_meta(path, meta)
            integrity = _check_integrity(path, shards, verify=verify)
            store = cls(path, meta, shards, lock, integrity, compacts=current)
            store.refresh_lexical()
        except BaseException:
            for shard in shards.values():
                shard.close()
            lock.release()
            raise
        return store

    # --- primitives -------------------------------------------------------------------

    def _upsert(self, coll: Collection, points: Sequence[PointData]) -> None:
        batch = [qe.Point(p.id, _named_vectors(p), p.payload) for p in points]
        self._integrity.begin(coll, len(batch))
        self._shards[coll].update(qe.UpdateOperation.upsert_points(batch))

    @_reads
    def _retrieve(
        self, coll: Collection, ids: Sequence[str], fields: Sequence[str] | None = None
    ) -> list[Payload]:
        if not ids:
            return []
        with_payload: bool | list[str] = list(fields) if fields else True
        records = self._shards[coll].retrieve(list(ids), with_payload, False)
        return [r.payload for r in records if r.payload is not None]

    @_reads
    def _dense_vectors(
        self, coll: Collection, ids: Sequence[str], using: str = DENSE
    ) -> dict[str, list[float]]:
        if not ids:
            return {}
        records = self._shards[coll].retrieve(list(ids), ["id"], [using])
        vectors: dict[str, list[float]] = {}
        for record in records:
            vector = record.vector
            if record.payload is not None and isinstance(vector, dict) and using in vector:
                vectors[record.payload["id"]] = cast(list[float], vector[using])
        return vectors

    @_reads
    def _part_vectors(self, coll: Collection, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        if not ids:
            return {}
        records = self._shards[coll].retrieve(list(ids), ["id"], [PARTS])
        found = {r.payload["id"]: parts_only(r.vector) for r in records if r.payload is not None}
        return {memory_id: parts for memory_id, parts in found.items() if parts}

    @_reads
    def _search(
        self,
        coll: Collection,
        using: str,
        vector: QueryVector,
        cond: EdgeCondition | None,
        limit: int,
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        named = qe.SparseVector(*vector) if isinstance(vector, tuple) else vector
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(named, using=using),
            filter=_filter(cond),
            with_payload=True if fields is None else (list(fields) or False),
            with_vector=False,
        )
        return [Hit(str(p.id), p.payload or {}, p.score) for p in self._shards[coll].query(request)]

    @_reads
    def _scroll(
        self,
        coll: Collection,
        cond: EdgeCondition | None,
        limit: int,
        offset: str | None,
        fields: Sequence[str] | None = None,
    ) -> tuple[list[Payload], str | None]:
        with_payload: bool | list[str] = list(fields) if fields else True
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=_filter(cond),
            with_payload=with_payload,
            with_vector=False,
        )
        records, following = self._shards[coll].scroll(request)
        page: list[Payload] = [r.payload for r in records if r.payload is not None]
        return page, None if following is None else str(following)

    @_reads
    def _scroll_points(
        self, coll: Collection, limit: int, offset: str | None
    ) -> tuple[list[StoredPoint], str | None]:
        request = qe.ScrollRequest(offset=offset, limit=limit, with_payload=True, with_vector=True)
        records, following = self._shards[coll].scroll(request)
        page = [
            StoredPoint(dict(r.payload), dense_only(r.vector), parts_only(r.vector))
            for r in records
            if r.payload is not None
        ]
        return page, None if following is None else str(following)

    @_reads
    def _latest(
        self, coll: Collection, key: str, limit: int, cond: EdgeCondition | None = None
    ) -> list[Payload]:
        order = qe.OrderBy(key, direction=qe.Direction.Desc)
        request = qe.ScrollRequest(
            limit=limit, filter=_filter(cond), with_payload=True, with_vector=False, order_by=order
        )
        records, _ = self._shards[coll].scroll(request)
        return [r.payload for r in records if r.payload is not None]

    @_reads
    def _count(self, coll: Collection, cond: EdgeCondition | None) -> int:
        return self._shards[coll].count(qe.CountRequest(exact=True, filter=_filter(cond)))

    @_reads
    def _facet(
        self, coll: Collection, key: str, cond: EdgeCondition | None, limit: int
    ) -> dict[str, int]:
        request = qe.FacetRequest(key, limit=limit, exact=True, filter=_filter(cond))
        return {str(hit.value): hit.count for hit in self._shards[coll].facet(request).hits}

    def _overwrite_payloads(self, coll: Collection, points: Sequence[PointData]) -> None:
        for point in points:  # one payload per operation: each point's payload differs
            self._shards[coll].update(
                qe.UpdateOperation.overwrite_payload([point.id], point.payload)
            )

    def _set_sparse(self, coll: Collection, vectors: Sequence[tuple[str, SparseTerms]]) -> None:
        batch = [qe.PointVectors(pid, {LEXICAL: qe.SparseVector(*terms)}) for pid, terms in vectors]
        self._shards[coll].update(qe.UpdateOperation.update_vectors(batch))

    def _delete(self, coll: Collection, ids: Sequence[str]) -> None:
        self._integrity.begin(coll, len(ids))
        self._shards[coll].update(qe.UpdateOperation.delete_points(list(ids)))

    def _commit(self, coll: Collection) -> None:
        shard = self._shards[coll]
        shard.flush()
        if self._integrity.under_way(coll):
            journal_last = _journal_last(shard) if coll is Collection.JOURNAL else None
            self._integrity.settle(coll, _points(shard), journal_last)

    def _save_meta(self, meta: StoreMeta) -> None:
        write_meta(Path(self.location), meta)

    # --- salvage ----------------------------------------------------------------------

    def readable_points(self, collection: str, lost: list[str]) -> Iterator[StoredPoint]:
        """Every point of `collection` whose payload can still be read, in id order. A
        page that fails is read again one point at a time; the ids of the points that
        fail alone are appended to `lost`. For `repair` (see `open(verify=False)`)."""
        coll = Collection(collection)
        shard = self._shards[coll]
        offset: str | None = None
        while True:
            try:
                page, following = self._scroll_points(coll, _SALVAGE_PAGE, offset)
            except StoreDamagedError:
                request = qe.ScrollRequest(
                    offset=offset, limit=_SALVAGE_PAGE, with_payload=False, with_vector=False
                )
                records, after = shard.scroll(request)
                page = []
                for record in records:
                    point = _read_alone(shard, record.id)
                    if point is None:
                        lost.append(str(record.id))
                    else:
                        page.append(point)
                following = None if after is None else str(after)
            yield from page
            if following is None:
                return
            offset = following

    # --- maintenance ------------------------------------------------------------------

    def optimize(self) -> None:
        for shard in self._shards.values():
            shard.optimize()

    def compact(self) -> bool:
        """Edge's optimizers, in this version's layout: each run converts what was
        written since the last and merges down to `edge_layout.SEGMENTS`; holds the GIL
        throughout."""
        if not self._compacts:
            return False
        changed = [shard.optimize() for shard in self._shards.values()]
        return any(changed)

    def close(self) -> None:
        """Flush and close every shard, then release the lock; idempotent (a view's
        close leaves them to the store it views)."""
        if not self._owner:
            return
        shards, self._shards = self._shards, {}
        try:
            for shard in shards.values():
                shard.flush()
                shard.close()
        finally:
            self._lock.release()


def _check_integrity(
    path: Path, shards: Mapping[Collection, qe.EdgeShard], *, verify: bool
) -> Integrity:
    """Compare what loaded with the store's record (`integrity.py`), then make what
    loaded the record: a store from before the record was kept starts one here."""
    counts = {str(coll): _points(shard) for coll, shard in shards.items()}
    journal_last = _journal_last(shards[Collection.JOURNAL])
    promise = Integrity.read(path)
    broken = [] if promise is None else broken_promises(promise, counts, journal_last)
    if broken and verify:
        raise damaged(str(path), "; ".join(broken))
    if broken:  # opened to salvage: the record keeps saying what was written
        return Integrity(path, promise or Promise(counts=counts), read_only=True)
    now = Promise(counts=counts, journal_last=journal_last)
    integrity = Integrity(path, now)
    if promise != now:
        integrity.record()
    return integrity


def _read_alone(shard: qe.EdgeShard, point_id: int | uuid.UUID | str) -> StoredPoint | None:
    try:
        records = shard.retrieve([point_id], True, True)
    except Exception:  # Edge raises bare exceptions: whatever the cause, this one is lost
        return None
    for record in records:
        if record.payload is not None:
            return StoredPoint(
                dict(record.payload), dense_only(record.vector), parts_only(record.vector)
            )
    return None


def _points(shard: qe.EdgeShard) -> int:
    return shard.count(qe.CountRequest(exact=True))


def _journal_last(shard: qe.EdgeShard) -> int | None:
    order = qe.OrderBy(JOURNAL_ORDER_FIELD, direction=qe.Direction.Desc)
    request = qe.ScrollRequest(limit=1, with_payload=[JOURNAL_ORDER_FIELD], order_by=order)
    records, _ = shard.scroll(request)
    for record in records:
        if record.payload is not None:
            return int(record.payload[JOURNAL_ORDER_FIELD])
    return None


def _has_vector(shard: qe.EdgeShard, name: str, dimension: int) -> bool:
    """Whether the memories shard declares the vector `name`: a shard's vectors are fixed
    when it is created, and Edge has no call that lists them, so ask for one. The ask
    matches no point (the nil id), so it reads no vector: a search over every context
    vector would cost the open ~0.1 s at 100k while they are not in the page cache."""
    nothing = qe.Filter(must=[qe.HasIdCondition({str(uuid.UUID(int=0))})])
    probe = qe.QueryRequest(
        limit=1,
        query=qe.Query.Nearest(
            [[0.0] * dimension] if name == PARTS else [0.0] * dimension, using=name
        ),
        with_payload=False,
        filter=nothing,
    )
    try:
        shard.query(probe)
    except Exception:  # Edge raises a bare "Not existing vector name" error
        return False
    return True


def _named_vectors(point: PointData) -> dict[str, qe.NamedVector]:
    vectors: dict[str, qe.NamedVector] = {}
    if point.dense is not None:
        vectors[DENSE] = point.dense
    if point.context is not None:
        vectors[CONTEXT] = point.context
    if point.parts:
        vectors[PARTS] = point.parts
    if point.sparse is not None:
        vectors[LEXICAL] = qe.SparseVector(*point.sparse)
    return vectors


def _filter(cond: EdgeCondition | None) -> qe.Filter | None:
    if cond is None or isinstance(cond, qe.Filter):
        return cond
    return qe.Filter(must=[cond])
