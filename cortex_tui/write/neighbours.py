"""Neighbour context: a memory of a conversation is indexed with the turn before it.

"Yes, the blue one — I adopted her last May" answers nothing on its own; with the
question before it, it answers "when did Caroline adopt her dog?". A memory that carries
a session and a turn (captured, imported or evaluated from a conversation) is written
with an `IndexContext`: the previous turn's text, whose words count for BM25 at a
reduced weight, and a context vector, the normalised sum of its own vector and the
previous turn's. A sum of two vectors the store already has costs no second embedding,
and on LoCoMo it matched embedding the two turns together (R@10 74.2 vs 73.8 in the
same emulation). Memories written alone (no turn) have no neighbours and are written as
they always were.

The previous turn is the session's latest turn below the memory's own, among the
memories being written and those already stored; every memory of that turn counts
(a captured turn yields several), the current versions only when some are current.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cortex_tui.config import ContextConfig
from cortex_tui.models import Memory
from cortex_tui.store.base import IndexContext, MemoryFilter, Parts, Store, Vector

REBUILD_BATCH = 256
_ANY_TURN = 2**62


@dataclass(slots=True)
class _Turn:
    """The memories of one turn of a session, with their vectors."""

    number: int
    memories: list[Memory] = field(default_factory=list)
    vectors: list[Vector] = field(default_factory=list)


class NeighbourIndex:
    """Writes memories to `store` with the context of the turn before each one."""

    def __init__(self, store: Store, config: ContextConfig) -> None:
        self._store = store
        self._config = config

    def write(
        self,
        memories: Sequence[Memory],
        vectors: Sequence[Vector],
        parts: Sequence[Parts] | None = None,
    ) -> None:
        """Store memories with their context; `parts` (`write/parts.py`) as given."""
        contexts = self.contexts(memories, vectors)
        self._store.upsert_memories(memories, vectors, contexts, parts)

    def contexts(
        self, memories: Sequence[Memory], vectors: Sequence[Vector]
    ) -> list[IndexContext | None]:
        """The context each memory is indexed with (None: written alone)."""
        if not self._config.enabled:
            return [None] * len(memories)
        batch: dict[str, dict[int, _Turn]] = defaultdict(dict)
        for memory, vector in zip(memories, vectors, strict=True):
            if memory.session_id is not None and memory.turn is not None:
                turn = batch[memory.session_id].setdefault(memory.turn, _Turn(memory.turn))
                turn.memories.append(memory)
                turn.vectors.append(vector)
        found: dict[tuple[str, int], _Turn | None] = {}
        contexts: list[IndexContext | None] = []
        for memory, vector in zip(memories, vectors, strict=True):
            if memory.session_id is None or memory.turn is None:
                contexts.append(None)
                continue
            key = (memory.session_id, memory.turn)
            if key not in found:
                found[key] = self._previous(memory.session_id, memory.turn, batch)
            contexts.append(self._context(vector, found[key]))
        return contexts

    def rebuild(self) -> int:
        """Re-index the context of every memory of a conversation from what the store
        holds now (after a re-embed, or a change of the context settings); returns how
        many memories were re-indexed."""
        done = 0
        offset: str | None = None
        with_turn = MemoryFilter(current_only=False, statuses=None, before_turn=_ANY_TURN)
        while True:
            page, offset = self._store.scroll_memories(with_turn, REBUILD_BATCH, offset)
            stored = self._store.get_vectors([m.id for m in page])
            batch = [m for m in page if m.id in stored]
            if batch:
                kept = self._store.get_parts([m.id for m in batch])
                parts = [kept.get(m.id, []) for m in batch]
                self.write(batch, [stored[m.id] for m in batch], parts)
                done += len(batch)
            if offset is None:
                return done

    def _previous(
        self, session: str, turn: int, batch: dict[str, dict[int, _Turn]]
    ) -> _Turn | None:
        """The session's latest turn below `turn`: from the batch, the store, or both
        when they hold parts of the same turn."""
        earlier = [number for number in batch[session] if number < turn]
        in_batch = batch[session][max(earlier)] if earlier else None
        if in_batch is not None and in_batch.number == turn - 1:
            return _current(in_batch)  # nothing can lie between
        stored = self._store.session_turn(session, before=turn)
        number = stored[0].turn if stored else None
        if number is None or (in_batch is not None and in_batch.number > number):
            return None if in_batch is None else _current(in_batch)
        vectors = self._store.get_vectors([m.id for m in stored])
        result = _Turn(number)
        if in_batch is not None and in_batch.number == number:
            result.memories.extend(in_batch.memories)
            result.vectors.extend(in_batch.vectors)
        known = {m.id for m in result.memories}
        for memory in stored:
            if memory.id not in known and memory.id in vectors:
                result.memories.append(memory)
                result.vectors.append(vectors[memory.id])
        return _current(result)

    def _context(self, vector: Vector, previous: _Turn | None) -> IndexContext | None:
        if previous is None or not previous.memories:
            return None
        text = " ".join(m.content for m in previous.memories)
        if len(text) > self._config.max_chars:
            text = text[len(text) - self._config.max_chars :]
        own = np.asarray(vector, dtype=np.float32)
        before = np.asarray(previous.vectors, dtype=np.float32).sum(axis=0)
        before /= np.linalg.norm(before) or 1.0
        combined = own / (np.linalg.norm(own) or 1.0) + before
        norm = float(np.linalg.norm(combined))
        return IndexContext(
            text=text,
            vector=combined / norm if norm > 0 else None,
            lexical_weight=self._config.lexical_weight,
        )


def _current(turn: _Turn) -> _Turn:
    """Only the turn's current versions when any is current: an updated statement's old
    version and its replacement share the turn, and only the replacement still holds."""
    keep = [i for i, m in enumerate(turn.memories) if m.is_current]
    if not keep or len(keep) == len(turn.memories):
        return turn
    return _Turn(turn.number, [turn.memories[i] for i in keep], [turn.vectors[i] for i in keep])
