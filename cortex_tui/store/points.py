"""A store's points as both backends write and read them: the collections, the named
vectors of a memory, what a write carries (`PointData`) and what a search finds (`Hit`).

Memories carry dense "dense", dense "context" (a memory of a conversation, with the turn
before it), multivector "parts" (a memory of several sentences) and sparse "lexical"; a
memory's context rides in the payload under `_context` so its lexical vector can be
rebuilt when the tags change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, cast

import numpy as np

from cortex_tui.errors import EmbedderMismatchError
from cortex_tui.models import Memory
from cortex_tui.store.base import IndexContext, Parts, StoreMeta, Vector
from cortex_tui.store.lexical import SparseTerms, encode_document, indexed_words
from cortex_tui.store.payload import CONTEXT_KEY, to_payload

DENSE = "dense"
CONTEXT = "context"
PARTS = "parts"
LEXICAL = "lexical"
Payload = Mapping[str, Any]
QueryVector = list[float] | list[list[float]] | SparseTerms
"""What a search asks with: a dense vector, a multivector (for `PARTS`), sparse terms."""


class Collection(StrEnum):
    MEMORIES = "memories"
    ENTITIES = "entities"
    RELATIONS = "relations"
    JOURNAL = "journal"
    ARCHIVE = "archive"


RECORDS = frozenset({Collection.MEMORIES, Collection.ARCHIVE})
"""The collections whose points are memory-shaped (the same vectors, payload and
indexes): the memories, and the turn archive's messages (`cortex_tui/archive/`)."""


@dataclass(frozen=True, slots=True)
class PointData:
    """A point to write: payload plus the vectors its collection has."""

    id: str
    payload: dict[str, Any]
    dense: list[float] | None = None
    sparse: SparseTerms | None = None
    context: list[float] | None = None
    parts: list[list[float]] | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    """The point's id: a memory's own id (`is_point_id`), so ids need no payload read."""
    payload: Payload
    score: float


IDS_ONLY: tuple[str, ...] = ()
"""`fields` of a search that reads no payload: reading even the `id` field costs
0.5 ms per 50 points (payloads are on disk), five times the search at 1k memories."""


def best_then_id(hit: Hit) -> tuple[float, str]:
    return -hit.score, hit.id


def require_embedder(meta: StoreMeta, embedder_name: str, dimension: int, location: str) -> None:
    """Refuse to mix vectors of two embedders: the scores would be silent garbage."""
    if meta.embedder == embedder_name and meta.dimension == dimension:
        return
    raise EmbedderMismatchError(
        f"store at {location} was built with {meta.embedder} ({meta.dimension}-d) but the "
        f"configured embedder is {embedder_name} ({dimension}-d); vectors of two models "
        "never mix: run `cortex-tui reembed --to MODEL` to convert the store, or set "
        "embedder.kind / embedder.model back",
        recorded=meta.embedder,
    )


def dense_only(vector: object) -> dict[str, list[float]]:
    """A record's named single dense vectors (sparse ones derive from the payload; its
    parts are `parts_only`)."""
    if not isinstance(vector, dict):
        return {}
    return {
        name: cast(list[float], v)
        for name, v in vector.items()
        if isinstance(v, list) and name != PARTS
    }


def parts_only(vector: object) -> list[list[float]]:
    """A record's part vectors (none when it has no parts)."""
    if not isinstance(vector, dict):
        return []
    parts = vector.get(PARTS)
    return [list(map(float, part)) for part in parts] if isinstance(parts, list) else []


def floats(vector: Vector) -> list[float]:
    """Plain Python floats, which both clients convert fastest (`tolist` for arrays)."""
    if isinstance(vector, np.ndarray):
        return cast(list[float], vector.tolist())
    return list(map(float, vector))


def memory_point(
    memory: Memory, vector: Vector, context: IndexContext | None, parts: Parts
) -> PointData:
    payload = to_payload(memory)
    part_rows = [floats(part) for part in parts] or None
    if context is None:
        return PointData(
            memory.id, payload, floats(vector), lexical_terms(memory, None), parts=part_rows
        )
    stored = {"text": context.text, "weight": context.lexical_weight}
    payload[CONTEXT_KEY] = stored
    return PointData(
        memory.id,
        payload,
        floats(vector),
        lexical_terms(memory, stored),
        None if context.vector is None else floats(context.vector),
        part_rows,
    )


def lexical_terms(memory: Memory, context: Mapping[str, Any] | None) -> SparseTerms:
    """The lexical vector of a memory and its stored context (`_context` payload)."""
    if not context:
        return encode_document(memory.content, indexed_words(memory))
    return encode_document(
        memory.content, indexed_words(memory), context["text"], float(context["weight"])
    )
