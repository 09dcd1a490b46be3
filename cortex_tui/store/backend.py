"""The `Store` protocol implemented once, over the per-backend point primitives
(`store/primitives.py`).

What a store operation means (validation, payload mapping, the lexical channel, journal
order, what "not found" does) is written here, so the two backends cannot drift apart. A
backend subclasses `QdrantStore` and implements the `_` primitives.

Collections: `memories` (its vectors: `store/points.py`), `entities` (dense name vector
+ payload), `relations` and `journal` (payload only). A memory's context (the turn before
it) is index-side: it never reaches the `Memory` model.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TypeVar

from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.models import Entity, Memory, Relation
from cortex_tui.store.base import (
    IndexContext,
    JournalEntry,
    MemoryFilter,
    Parts,
    ScoredEntity,
    ScoredMemory,
    StoredPoint,
    Vector,
)
from cortex_tui.store.filters import (
    JOURNAL_ORDER_FIELD,
    MEMORY_KEYWORD_FIELDS,
    C,
    memory_conditions,
    relation_conditions,
)
from cortex_tui.store.lexical import (
    LEXICAL_VERSION,
    SparseTerms,
    encode_query,
)
from cortex_tui.store.payload import (
    CONTEXT_KEY,
    from_payload,
    is_point_id,
    journal_from_payload,
    journal_to_payload,
    point_ids,
    require_point_ids,
    require_vectors,
    to_payload,
)
from cortex_tui.store.points import (
    CONTEXT,
    DENSE,
    IDS_ONLY,
    LEXICAL,
    PARTS,
    RECORDS,
    Collection,
    Hit,
    Payload,
    PointData,
    QueryVector,
    floats,
    lexical_terms,
    memory_point,
)
from cortex_tui.store.primitives import PointPrimitives
from cortex_tui.store.ties import settled_hits

log = logging.getLogger(__name__)

_NO_TURN_LIMIT = 2**62  # "before" a turn no session reaches: the session's latest turn
_TURN_MEMORIES = 32  # memories read for one turn (a captured turn yields a handful)
_REENCODE_BATCH = 512  # lexical vectors replaced per update when the tokenizer changed
_Record = TypeVar("_Record", Memory, Entity)


class QdrantStore(PointPrimitives[C]):
    """A `Store` over Qdrant points; see the module docstring for the split."""

    _records = Collection.MEMORIES
    """The collection the memory operations read and write: the memories, or the turn
    archive in the view `archive` returns."""

    @cached_property
    def archive(self) -> QdrantStore[C]:
        """The turn archive (`cortex_tui/archive/`) through the same operations: a view
        sharing this store's shards, lock and deferred commits, closed with it."""
        view = copy.copy(self)
        view._records = Collection.ARCHIVE
        view._owner = False
        return view

    def refresh_lexical(self) -> int:
        """Re-encode every memory's lexical vector when they were encoded by an older
        tokenizer (`LEXICAL_VERSION`), so an upgrade never leaves queries and stored
        terms disagreeing; returns how many were re-encoded. The version is recorded
        only once all are done: a crash halfway means the next open starts again."""
        if self._meta.lexical_version == LEXICAL_VERSION:
            return 0
        log.warning(
            "the store at %s was indexed by an older tokenizer; re-encoding its lexical "
            "vectors once (about 20 s per 100k memories)",
            self._location,
        )
        done = 0
        for coll in sorted(RECORDS):
            batch: list[tuple[str, SparseTerms]] = []
            for payload in self._scroll_all(coll, None):
                memory = from_payload(Memory, payload)
                batch.append((memory.id, lexical_terms(memory, payload.get(CONTEXT_KEY))))
                if len(batch) == _REENCODE_BATCH:
                    self._set_sparse(coll, batch)
                    done, batch = done + len(batch), []
            if batch:
                self._set_sparse(coll, batch)
                done += len(batch)
            self._durable(coll)
        self._meta = self._meta.model_copy(update={"lexical_version": LEXICAL_VERSION})
        self._save_meta(self._meta)
        return done

    # --- memories ---------------------------------------------------------------------

    def upsert_memories(
        self,
        memories: Sequence[Memory],
        vectors: Sequence[Vector],
        contexts: Sequence[IndexContext | None] | None = None,
        parts: Sequence[Parts] | None = None,
    ) -> None:
        require_point_ids(m.id for m in memories)
        require_vectors(len(memories), vectors, self._meta.dimension, "memories")
        given = list(contexts) if contexts is not None else [None] * len(memories)
        if len(given) != len(memories):
            raise InvalidInputError(f"{len(memories)} memories but {len(given)} contexts")
        if not self._context:  # no place for a context vector: the words still count
            given = [c if c is None else replace(c, vector=None) for c in given]
        context_vectors = [c.vector for c in given if c is not None and c.vector is not None]
        require_vectors(len(context_vectors), context_vectors, self._meta.dimension, "contexts")
        split: list[Parts] = list(parts) if parts is not None else [[]] * len(memories)
        if len(split) != len(memories):
            raise InvalidInputError(f"{len(memories)} memories but {len(split)} part lists")
        if not self._parts:
            split = [[]] * len(memories)
        for rows in split:
            require_vectors(len(rows), list(rows), self._meta.dimension, "parts")
        if memories:
            points = list(map(memory_point, memories, vectors, given, split))
            self._upsert(self._records, points)
            self._durable(self._records)

    def update_memories(self, memories: Sequence[Memory], *, durable: bool = True) -> None:
        """Payload-only update, keeping the memory's stored context. The lexical vector is
        rebuilt when tags or the speaker changed (both are indexed); a content change is
        refused since the dense vector would go stale."""
        ids = [m.id for m in memories]
        require_point_ids(ids)
        fields = ("id", "content", "tags", "speaker", CONTEXT_KEY)
        stored = {p["id"]: p for p in self._retrieve(self._records, ids, fields)}
        for memory in memories:
            before = stored.get(memory.id)
            if before is None:
                raise NotFoundError(f"memory {memory.short_id} does not exist")
            if before["content"] != memory.content:
                raise InvalidInputError(
                    f"memory {memory.short_id}: content changed; store it with a new vector "
                    "(upsert_memories)"
                )
        if not memories:
            return
        points = []
        for memory in memories:
            payload = to_payload(memory)
            if stored[memory.id].get(CONTEXT_KEY):
                payload[CONTEXT_KEY] = stored[memory.id][CONTEXT_KEY]
            points.append(PointData(memory.id, payload))
        self._overwrite_payloads(self._records, points)
        retagged = [
            (m.id, lexical_terms(m, stored[m.id].get(CONTEXT_KEY)))
            for m in memories
            if stored[m.id]["tags"] != m.tags or stored[m.id].get("speaker") != m.speaker
        ]
        if retagged:
            self._set_sparse(self._records, retagged)
        if durable:
            self._durable(self._records)

    def get_memories(self, ids: Sequence[str]) -> list[Memory]:
        return self._get(self._records, Memory, ids)

    def get_vectors(self, ids: Sequence[str], *, context: bool = False) -> dict[str, list[float]]:
        if context and not self._context:
            return {}
        wanted = list(dict.fromkeys(point_ids(ids)))
        return self._dense_vectors(self._records, wanted, CONTEXT if context else DENSE)

    def get_parts(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        if not self._parts:
            return {}
        wanted = list(dict.fromkeys(point_ids(ids)))
        return self._part_vectors(self._records, wanted)

    def session_turn(self, session_id: str, before: int | None = None) -> list[Memory]:
        flt = MemoryFilter(
            session_id=session_id,
            before_turn=before if before is not None else _NO_TURN_LIMIT,
            current_only=False,
            statuses=None,
        )
        cond = self._cond(flt)
        latest = self._latest(self._records, "turn", 1, cond)
        if not latest:
            return []
        same = self._cond(flt.model_copy(update={"before_turn": int(latest[0]["turn"]) + 1}))
        # The memories of that turn: the highest turns below it, cut where the turn changes.
        found = [
            from_payload(Memory, p)
            for p in self._latest(self._records, "turn", _TURN_MEMORIES, same)
        ]
        return [m for m in found if m.turn == latest[0]["turn"]]

    def find_ids_by_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        """Ids are lowercase UUIDs, so the prefix is lowercased; an empty one names none."""
        if not prefix:
            return []
        cond = self._build.match_prefix("id", prefix.lower())
        payloads, _ = self._scroll(self._records, cond, limit, None)
        return [str(p["id"]) for p in payloads]

    def search_dense(self, vector: Vector, flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        require_vectors(1, [vector], self._meta.dimension, "query")
        dense = floats(vector)
        return self._scored(self._search_settled(DENSE, dense, self._cond(flt), limit))

    def search_ids(
        self, vector: Vector, flt: MemoryFilter, limit: int, *, context: bool = False
    ) -> list[tuple[str, float]]:
        require_vectors(1, [vector], self._meta.dimension, "query")
        if context and not self._context:
            return []
        using, dense, cond = CONTEXT if context else DENSE, floats(vector), self._cond(flt)
        hits = self._search_settled(using, dense, cond, limit, fields=IDS_ONLY)
        return [(h.id, h.score) for h in hits]

    def search_lexical(self, text: str, flt: MemoryFilter, limit: int) -> list[ScoredMemory]:
        query = encode_query(text)
        if not query[0]:
            return []
        return self._scored(self._search_settled(LEXICAL, query, self._cond(flt), limit))

    def search_lexical_ids(
        self, text: str, flt: MemoryFilter, limit: int
    ) -> list[tuple[str, float]]:
        query = encode_query(text)
        if not query[0]:
            return []
        hits = self._search_settled(LEXICAL, query, self._cond(flt), limit, fields=IDS_ONLY)
        return [(h.id, h.score) for h in hits]

    def lexical_scores(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        query = encode_query(text)
        return self._scores_of(ids, LEXICAL, query) if query[0] else {}

    def cosines(
        self, vector: Vector, ids: Sequence[str], *, context: bool = False
    ) -> dict[str, float]:
        require_vectors(1, [vector], self._meta.dimension, "query")
        if context and not self._context:
            return {}
        return self._scores_of(ids, CONTEXT if context else DENSE, floats(vector))

    def part_cosines(self, vector: Vector, ids: Sequence[str]) -> dict[str, float]:
        require_vectors(1, [vector], self._meta.dimension, "query")
        if not self._parts:
            return {}
        return self._scores_of(ids, PARTS, [floats(vector)])

    def _scores_of(self, ids: Sequence[str], using: str, query: QueryVector) -> dict[str, float]:
        """The named memories' scores on one vector: a search restricted to them, ids
        and scores only."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        cond = self._cond(MemoryFilter(ids=wanted, current_only=False, statuses=None))
        hits = self._search(self._records, using, query, cond, len(wanted), IDS_ONLY)
        return {h.id: h.score for h in hits}

    def _search_settled(
        self,
        using: str,
        vector: QueryVector,
        cond: C | None,
        limit: int,
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The top `limit` memories, equal scores in id order (`store/ties.py`)."""

        def search(count: int, reading: Sequence[str] | None) -> list[Hit]:
            return self._search(self._records, using, vector, cond, count, reading)

        def retrieve(ids: Sequence[str], reading: Sequence[str] | None) -> list[Payload]:
            return self._retrieve(self._records, ids, reading)

        return settled_hits(search, retrieve, limit, fields)

    def scroll_memories(
        self, flt: MemoryFilter, limit: int, offset: str | None = None
    ) -> tuple[list[Memory], str | None]:
        if offset is not None and not is_point_id(offset):
            raise InvalidInputError(f"scroll offset {offset!r} is not a memory id")
        payloads, following = self._scroll(self._records, self._cond(flt), limit, offset)
        return [from_payload(Memory, p) for p in payloads], following

    def iter_memories(self, flt: MemoryFilter, batch: int = 256) -> Iterator[Memory]:
        offset: str | None = None
        while True:
            page, offset = self.scroll_memories(flt, batch, offset)
            yield from page
            if offset is None:
                return

    def scan_memories(
        self, flt: MemoryFilter, fields: Sequence[str], batch: int = 1024
    ) -> Iterator[Payload]:
        """Only `fields` of every memory `flt` lets through, as stored (enums as values,
        times as RFC3339 text): a whole-store view reads 100,000 memories this way in a
        fraction of what parsing them into `Memory` models costs."""
        cond, offset = self._cond(flt), None
        while True:
            page, offset = self._scroll(self._records, cond, batch, offset, fields)
            yield from page
            if offset is None:
                return

    def count_memories(self, flt: MemoryFilter) -> int:
        return self._count(self._records, self._cond(flt))

    def newest_memory(self, flt: MemoryFilter) -> Memory | None:
        found = self._latest(self._records, "created_at", 1, self._cond(flt))
        return from_payload(Memory, found[0]) if found else None

    def facet_memories(self, key: str, flt: MemoryFilter, limit: int = 100) -> dict[str, int]:
        if key not in MEMORY_KEYWORD_FIELDS:
            known = ", ".join(MEMORY_KEYWORD_FIELDS)
            raise InvalidInputError(f"cannot count memories by {key!r}; known fields: {known}")
        return self._facet(self._records, key, self._cond(flt), limit)

    def delete_memories(self, ids: Sequence[str]) -> None:
        self._delete_ids(self._records, ids)

    # --- entities and relations -------------------------------------------------------

    def upsert_entities(self, entities: Sequence[Entity], vectors: Sequence[Vector]) -> None:
        require_point_ids(e.id for e in entities)
        require_vectors(len(entities), vectors, self._meta.dimension, "entities")
        points = [
            PointData(e.id, to_payload(e), dense=floats(v))
            for e, v in zip(entities, vectors, strict=True)
        ]
        self._write(Collection.ENTITIES, points)

    def update_entities(self, entities: Sequence[Entity]) -> None:
        ids = [e.id for e in entities]
        require_point_ids(ids)
        stored = {p["id"] for p in self._retrieve(Collection.ENTITIES, ids, ("id",))}
        for entity in entities:
            if entity.id not in stored:
                raise NotFoundError(f"entity {entity.name!r} ({entity.id[:8]}) does not exist")
        if entities:
            points = [PointData(e.id, to_payload(e)) for e in entities]
            self._overwrite_payloads(Collection.ENTITIES, points)
            self._durable(Collection.ENTITIES)

    def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        return self._get(Collection.ENTITIES, Entity, ids)

    def all_entities(self) -> list[Entity]:
        return [from_payload(Entity, p) for p in self._scroll_all(Collection.ENTITIES, None)]

    def search_entities(self, vector: Vector, limit: int) -> list[ScoredEntity]:
        require_vectors(1, [vector], self._meta.dimension, "query")
        hits = self._search(Collection.ENTITIES, DENSE, floats(vector), None, limit)
        return [ScoredEntity(from_payload(Entity, h.payload), h.score) for h in hits]

    def delete_entities(self, ids: Sequence[str]) -> None:
        self._delete_ids(Collection.ENTITIES, ids)

    def upsert_relations(self, relations: Sequence[Relation]) -> None:
        require_point_ids(r.id for r in relations)
        self._write(Collection.RELATIONS, [PointData(r.id, to_payload(r)) for r in relations])

    def relations_of(self, entity_ids: Sequence[str], current_only: bool = True) -> list[Relation]:
        if not entity_ids:
            return []
        cond = relation_conditions(entity_ids, current_only, self._build)
        return [from_payload(Relation, p) for p in self._scroll_all(Collection.RELATIONS, cond)]

    def all_relations(self) -> list[Relation]:
        return [from_payload(Relation, p) for p in self._scroll_all(Collection.RELATIONS, None)]

    def delete_relations(self, ids: Sequence[str]) -> None:
        self._delete_ids(Collection.RELATIONS, ids)

    # --- journal ------------------------------------------------------------------------

    def append_journal(self, entry: JournalEntry) -> None:
        """Entries are numbered in append order (`seq`), which is what undo needs even
        when timestamps tie."""
        require_point_ids([entry.id])
        with self._journal_lock:  # read-then-write: one appender at a time
            latest = self._latest(Collection.JOURNAL, JOURNAL_ORDER_FIELD, 1)
            seq = int(latest[0][JOURNAL_ORDER_FIELD]) + 1 if latest else 0
            point = PointData(entry.id, journal_to_payload(entry, seq))
            self._write(Collection.JOURNAL, [point])

    def journal(self, limit: int = 50) -> list[JournalEntry]:
        return [
            journal_from_payload(p)
            for p in self._latest(Collection.JOURNAL, JOURNAL_ORDER_FIELD, limit)
        ]

    def delete_journal(self, ids: Sequence[str]) -> None:
        self._delete_ids(Collection.JOURNAL, ids)

    # --- whole-store copies -----------------------------------------------------------

    def points(self, collection: str) -> Iterator[StoredPoint]:
        coll, offset = Collection(collection), None
        while True:
            page, offset = self._scroll_points(coll, 256, offset)
            yield from page
            if offset is None:
                return

    def put_points(self, collection: str, points: Sequence[StoredPoint]) -> None:
        coll = Collection(collection)
        batch = [self._point_data(coll, point) for point in points]
        self._write(coll, batch)

    def count_points(self, collection: str) -> int:
        return self._count(Collection(collection), None)

    def _point_data(self, coll: Collection, point: StoredPoint) -> PointData:
        pid = str(point.payload.get("id", ""))
        require_point_ids([pid])
        dense = point.vectors.get(DENSE)
        if coll in RECORDS or coll is Collection.ENTITIES:
            if dense is None:
                raise InvalidInputError(f"{coll} point {pid} has no dense vector")
            require_vectors(1, [dense], self._meta.dimension, str(coll))
        if coll not in RECORDS:
            return PointData(pid, dict(point.payload), dense)
        memory = from_payload(Memory, point.payload)
        context = point.vectors.get(CONTEXT) if self._context else None
        if context is not None:
            require_vectors(1, [context], self._meta.dimension, "contexts")
        parts = point.parts if self._parts else []
        require_vectors(len(parts), parts, self._meta.dimension, "parts")
        sparse = lexical_terms(memory, point.payload.get(CONTEXT_KEY))
        return PointData(pid, dict(point.payload), dense, sparse, context, parts or None)

    # --- helpers ----------------------------------------------------------------------

    def _cond(self, flt: MemoryFilter) -> C | None:
        return memory_conditions(flt, self._build)

    def _scored(self, hits: list[Hit]) -> list[ScoredMemory]:
        return [ScoredMemory(from_payload(Memory, h.payload), h.score) for h in hits]

    def _get(self, coll: Collection, model: type[_Record], ids: Sequence[str]) -> list[_Record]:
        wanted = point_ids(ids)
        found = {p["id"]: p for p in self._retrieve(coll, list(dict.fromkeys(wanted)))}
        return [from_payload(model, found[i]) for i in wanted if i in found]
