"""The store on qdrant-client: a Qdrant server or cluster, or `:memory:` for tests.

Importing qdrant_client costs 0.5–0.7 s, so only `factory.open_store` imports this
module, and only when a server is configured.

Collections are `{prefix}_memories`, `{prefix}_entities`, `{prefix}_relations`,
`{prefix}_journal` (same vectors and payload as the Edge shards; relations and journal
are vectorless, which Qdrant allows) and `{prefix}_meta`: one point holding `StoreMeta`.
A meta *collection* rather than Qdrant's collection metadata works on every server
version and in `:memory:` mode alike, and is written last, so a half-created store is
recognised and completed on the next open.

A re-embed builds the store anew in `{prefix}_{slot}_*` beside the live collections and
switches to them with one write of `{prefix}_meta` (its `generation`), which every
client reads on open: Qdrant cannot rename a collection, and an alias cannot take the
name of the collection it would replace, so the meta is the pointer.

No lock: the server arbitrates concurrent clients. The journal's sequence number is read
then written, so two clients appending at the same instant may share a number (their
order is then arbitrary); curation happens in the one local service, so this is accepted.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Sequence
from typing import cast

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from cortex_tui.errors import CortexError, StoreError
from cortex_tui.models import utcnow
from cortex_tui.store.backend import QdrantStore
from cortex_tui.store.base import StoredPoint, StoreMeta
from cortex_tui.store.filters import Between
from cortex_tui.store.indexes import IndexKind, indexed_fields
from cortex_tui.store.lexical import LEXICAL_VERSION, SparseTerms
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

MEMORY_LOCATION = ":memory:"
_META_ID = str(uuid.uuid5(uuid.NAMESPACE_URL, "cortex-tui:store-meta"))
_IndexSchema = qm.PayloadSchemaType | qm.KeywordIndexParams | qm.TextIndexParams
_CLIENT_INDEX: dict[IndexKind, _IndexSchema] = {
    "keyword": qm.PayloadSchemaType.KEYWORD,
    "prefix": qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, prefix=True),
    "datetime": qm.PayloadSchemaType.DATETIME,
    "integer": qm.PayloadSchemaType.INTEGER,
    "text": qm.TextIndexParams(
        type=qm.TextIndexType.TEXT, tokenizer=qm.TokenizerType.WORD, lowercase=True
    ),
}


class ClientConditions:
    """`ConditionBuilder` for qdrant-client's filter models."""

    def match_value(self, key: str, value: str) -> qm.Condition:
        return qm.FieldCondition(key=key, match=qm.MatchValue(value=value))

    def match_any(self, key: str, values: Sequence[str]) -> qm.Condition:
        return qm.FieldCondition(key=key, match=qm.MatchAny(any=list(values)))

    def match_text(self, key: str, text: str) -> qm.Condition:
        return qm.FieldCondition(key=key, match=qm.MatchText(text=text))

    def match_prefix(self, key: str, prefix: str) -> qm.Condition:
        return qm.FieldCondition(key=key, match=qm.MatchPrefix(prefix=prefix))

    def is_empty(self, key: str) -> qm.Condition:
        return qm.IsEmptyCondition(is_empty=qm.PayloadField(key=key))

    def has_id(self, ids: Sequence[str]) -> qm.Condition:
        return qm.HasIdCondition(has_id=list(ids))

    def datetime_range(self, key: str, bounds: Between) -> qm.Condition:
        return qm.FieldCondition(
            key=key,
            range=qm.DatetimeRange(gt=bounds.gt, gte=bounds.gte, lt=bounds.lt, lte=bounds.lte),
        )

    def below(self, key: str, value: int) -> qm.Condition:
        return qm.FieldCondition(key=key, range=qm.Range(lt=value))

    def combine(
        self,
        must: Sequence[qm.Condition] = (),
        should: Sequence[qm.Condition] = (),
        must_not: Sequence[qm.Condition] = (),
    ) -> qm.Condition:
        return qm.Filter(
            must=list(must) or None, should=list(should) or None, must_not=list(must_not) or None
        )


def _indexes(coll: Collection) -> dict[str, _IndexSchema]:
    """`indexed_fields` as qdrant-client index parameters (the same as the Edge shards)."""
    return {field: _CLIENT_INDEX[kind] for field, kind in indexed_fields(coll).items()}


class QdrantServerStore(QdrantStore[qm.Condition]):
    """A store in Qdrant collections named `{prefix}_*`."""

    def __init__(self, client: QdrantClient, location: str, prefix: str, meta: StoreMeta) -> None:
        data = data_prefix(prefix, meta)
        memories = client.get_collection(f"{data}_{Collection.MEMORIES.value}")
        vectors = memories.config.params.vectors
        named = vectors if isinstance(vectors, dict) else {}
        super().__init__(
            meta, location, ClientConditions(), context=CONTEXT in named, parts=PARTS in named
        )
        self._client = client
        self._meta_prefix = prefix
        self._prefix = data

    @classmethod
    def open(
        cls,
        url_or_memory: str,
        api_key: str | None,
        prefix: str,
        embedder_name: str,
        dimension: int,
        *,
        check_embedder: bool = True,
    ) -> QdrantServerStore:
        """Connect (or start an in-memory instance) and create missing collections.

        `check_embedder=False` is for the re-embed migration, as in `EdgeStore.open`.
        """
        if url_or_memory == MEMORY_LOCATION:
            client = QdrantClient(location=MEMORY_LOCATION)
        else:
            client = QdrantClient(url=url_or_memory, api_key=api_key)
        try:
            meta = _read_meta(client, prefix)
            if meta is not None and check_embedder:
                require_embedder(meta, embedder_name, dimension, url_or_memory)
            fresh = meta is None
            if meta is None:
                meta = StoreMeta(
                    embedder=embedder_name,
                    dimension=dimension,
                    created_at=utcnow(),
                    lexical_version=LEXICAL_VERSION,
                )
            for coll in Collection:
                _ensure_collection(
                    client, f"{data_prefix(prefix, meta)}_{coll.value}", coll, meta.dimension
                )
            if fresh:
                _write_meta(client, prefix, meta)
            store = cls(client, url_or_memory, prefix, meta)
            store.refresh_lexical()
        except CortexError:
            client.close()
            raise
        except Exception as exc:  # connection refused, auth, server errors
            client.close()
            raise StoreError(f"cannot use the Qdrant store at {url_or_memory}: {exc}") from None
        return store

    def _name(self, coll: Collection) -> str:
        return f"{self._prefix}_{coll.value}"

    # --- primitives -------------------------------------------------------------------

    def _upsert(self, coll: Collection, points: Sequence[PointData]) -> None:
        structs = [
            qm.PointStruct(id=p.id, vector=_named_vectors(p), payload=p.payload) for p in points
        ]
        self._client.upsert(self._name(coll), points=structs)

    def _retrieve(
        self, coll: Collection, ids: Sequence[str], fields: Sequence[str] | None = None
    ) -> list[Payload]:
        if not ids:
            return []
        with_payload: bool | list[str] = list(fields) if fields else True
        records = self._client.retrieve(self._name(coll), list(ids), with_payload=with_payload)
        return [r.payload for r in records if r.payload is not None]

    def _dense_vectors(
        self, coll: Collection, ids: Sequence[str], using: str = DENSE
    ) -> dict[str, list[float]]:
        if not ids:
            return {}
        records = self._client.retrieve(
            self._name(coll), list(ids), with_payload=["id"], with_vectors=[using]
        )
        vectors: dict[str, list[float]] = {}
        for record in records:
            vector = record.vector
            if record.payload is not None and isinstance(vector, dict) and using in vector:
                vectors[record.payload["id"]] = cast(list[float], vector[using])
        return vectors

    def _part_vectors(self, coll: Collection, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        if not ids:
            return {}
        records = self._client.retrieve(
            self._name(coll), list(ids), with_payload=["id"], with_vectors=[PARTS]
        )
        found = {r.payload["id"]: parts_only(r.vector) for r in records if r.payload is not None}
        return {memory_id: parts for memory_id, parts in found.items() if parts}

    def _search(
        self,
        coll: Collection,
        using: str,
        vector: QueryVector,
        cond: qm.Condition | None,
        limit: int,
        fields: Sequence[str] | None = None,
    ) -> list[Hit]:
        query: list[float] | list[list[float]] | qm.SparseVector = (
            qm.SparseVector(indices=vector[0], values=vector[1])
            if isinstance(vector, tuple)
            else vector
        )
        response = self._client.query_points(
            self._name(coll),
            query=query,
            using=using,
            query_filter=_filter(cond),
            limit=limit,
            with_payload=True if fields is None else (list(fields) or False),
        )
        return [Hit(str(p.id), p.payload or {}, p.score) for p in response.points]

    def _scroll(
        self,
        coll: Collection,
        cond: qm.Condition | None,
        limit: int,
        offset: str | None,
        fields: Sequence[str] | None = None,
    ) -> tuple[list[Payload], str | None]:
        records, following = self._client.scroll(
            self._name(coll),
            scroll_filter=_filter(cond),
            limit=limit,
            offset=offset,
            with_payload=list(fields) if fields else True,
        )
        page: list[Payload] = [r.payload for r in records if r.payload is not None]
        return page, None if following is None else str(following)

    def _scroll_points(
        self, coll: Collection, limit: int, offset: str | None
    ) -> tuple[list[StoredPoint], str | None]:
        records, following = self._client.scroll(
            self._name(coll), limit=limit, offset=offset, with_vectors=True
        )
        page = [
            StoredPoint(dict(r.payload), dense_only(r.vector), parts_only(r.vector))
            for r in records
            if r.payload is not None
        ]
        return page, None if following is None else str(following)

    def _latest(
        self, coll: Collection, key: str, limit: int, cond: qm.Condition | None = None
    ) -> list[Payload]:
        order = qm.OrderBy(key=key, direction=qm.Direction.DESC)
        records, _ = self._client.scroll(
            self._name(coll), scroll_filter=_filter(cond), limit=limit, order_by=order
        )
        return [r.payload for r in records if r.payload is not None]

    def _count(self, coll: Collection, cond: qm.Condition | None) -> int:
        return self._client.count(self._name(coll), count_filter=_filter(cond), exact=True).count

    def _facet(
        self, coll: Collection, key: str, cond: qm.Condition | None, limit: int
    ) -> dict[str, int]:
        response = self._client.facet(
            self._name(coll), key, facet_filter=_filter(cond), limit=limit, exact=True
        )
        return {str(hit.value): hit.count for hit in response.hits}

    def _overwrite_payloads(self, coll: Collection, points: Sequence[PointData]) -> None:
        operations: list[qm.UpdateOperation] = [
            qm.OverwritePayloadOperation(
                overwrite_payload=qm.SetPayload(payload=p.payload, points=[p.id])
            )
            for p in points
        ]
        self._client.batch_update_points(self._name(coll), operations)

    def _set_sparse(self, coll: Collection, vectors: Sequence[tuple[str, SparseTerms]]) -> None:
        batch = [
            qm.PointVectors(
                id=pid, vector={LEXICAL: qm.SparseVector(indices=terms[0], values=terms[1])}
            )
            for pid, terms in vectors
        ]
        self._client.update_vectors(self._name(coll), points=batch)

    def _delete(self, coll: Collection, ids: Sequence[str]) -> None:
        self._client.delete(self._name(coll), points_selector=qm.PointIdsList(points=list(ids)))

    def _commit(self, coll: Collection) -> None:
        """Nothing to do: writes wait for the server to apply them (`wait=True`) and the
        server's WAL makes them durable."""

    def _save_meta(self, meta: StoreMeta) -> None:
        _write_meta(self._client, self._meta_prefix, meta)

    # --- re-embedding -----------------------------------------------------------------

    @property
    def prefix(self) -> str:
        """The configured prefix: the name of the store on its server."""
        return self._meta_prefix

    def switch_to(self, built: QdrantServerStore) -> None:
        """Make the store `built` (opened under `{prefix}_{slot}`) this store's data: one
        write of this store's meta, then the collections it used before are dropped.
        Clients that open the store from then on read the new ones."""
        slot = built.prefix.removeprefix(f"{self._meta_prefix}_")
        if built.prefix != f"{self._meta_prefix}_{slot}" or "_" in slot:
            raise StoreError(f"{built.prefix} is not a slot of the store {self._meta_prefix}")
        previous = self._prefix
        self._meta = built.meta.model_copy(update={"generation": slot})
        self._save_meta(self._meta)
        self._prefix = data_prefix(self._meta_prefix, self._meta)
        self._client.delete_collection(f"{built.prefix}_meta")
        _drop_data(self._client, previous)

    def drop(self) -> None:
        """Delete every collection of this store (a half-built re-embed's leftovers), then
        close it."""
        _drop_data(self._client, self._prefix)
        self._client.delete_collection(f"{self._meta_prefix}_meta")
        self.close()

    # --- maintenance ------------------------------------------------------------------

    def optimize(self) -> None:
        """Nothing to do: a server runs its optimizers (HNSW, vacuum) by itself."""

    def compact(self) -> bool:
        """Nothing to do: a server compacts by itself."""
        return False

    def close(self) -> None:
        if self._owner:
            self._client.close()


def _named_vectors(
    point: PointData,
) -> dict[str, list[float] | list[list[float]] | qm.SparseVector]:
    vectors: dict[str, list[float] | list[list[float]] | qm.SparseVector] = {}
    if point.dense is not None:
        vectors[DENSE] = point.dense
    if point.context is not None:
        vectors[CONTEXT] = point.context
    if point.parts:
        vectors[PARTS] = point.parts
    if point.sparse is not None:
        vectors[LEXICAL] = qm.SparseVector(indices=point.sparse[0], values=point.sparse[1])
    return vectors


def _filter(cond: qm.Condition | None) -> qm.Filter | None:
    if cond is None or isinstance(cond, qm.Filter):
        return cond
    return qm.Filter(must=[cond])


def _ensure_collection(client: QdrantClient, name: str, coll: Collection, dimension: int) -> None:
    """Create the collection when absent, and the payload indexes it lacks (as Edge does
    on open: a newer version can index more fields without a migration)."""
    if client.collection_exists(name):
        indexed = set(client.get_collection(name).payload_schema)
    else:
        params = qm.VectorParams(size=dimension, distance=qm.Distance.COSINE)
        best_part = qm.MultiVectorConfig(comparator=qm.MultiVectorComparator.MAX_SIM)
        parts = qm.VectorParams(
            size=dimension, distance=qm.Distance.COSINE, multivector_config=best_part
        )
        vectors = {
            Collection.MEMORIES: {DENSE: params, CONTEXT: params, PARTS: parts},
            Collection.ARCHIVE: {DENSE: params, CONTEXT: params, PARTS: parts},
            Collection.ENTITIES: {DENSE: params},
        }
        sparse = {LEXICAL: qm.SparseVectorParams(modifier=qm.Modifier.IDF)}
        client.create_collection(
            name,
            vectors_config=vectors.get(coll, {}),
            sparse_vectors_config=sparse if coll in RECORDS else None,
        )
        indexed = set()
    with warnings.catch_warnings():
        # `:memory:` mode ignores payload indexes and warns about each one; creating them
        # anyway keeps one code path for both modes.
        warnings.filterwarnings("ignore", "Payload indexes have no effect", UserWarning)
        for field, schema in _indexes(coll).items():
            if field not in indexed:
                client.create_payload_index(name, field, schema)


def data_prefix(prefix: str, meta: StoreMeta) -> str:
    """Where a store's collections are: `{prefix}_*`, or the generation a re-embed built."""
    return prefix if meta.generation is None else f"{prefix}_{meta.generation}"


def _drop_data(client: QdrantClient, data: str) -> None:
    for coll in Collection:
        client.delete_collection(f"{data}_{coll.value}")


def _read_meta(client: QdrantClient, prefix: str) -> StoreMeta | None:
    name = f"{prefix}_meta"
    if not client.collection_exists(name):
        return None
    records = client.retrieve(name, [_META_ID])
    if not records or records[0].payload is None:
        return None
    return StoreMeta.model_validate(records[0].payload)


def _write_meta(client: QdrantClient, prefix: str, meta: StoreMeta) -> None:
    name = f"{prefix}_meta"
    if not client.collection_exists(name):
        client.create_collection(name, vectors_config={})
    payload = meta.model_dump(mode="json")
    client.upsert(name, points=[qm.PointStruct(id=_META_ID, vector={}, payload=payload)])
