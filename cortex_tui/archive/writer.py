"""A turn's messages into the archive: one memory-shaped record each, with its vectors
(its own and one per sentence, as a memory of several sentences has), once per turn.

A record's id comes from what was said and where, so a turn captured again (a replay
after a crash, a transcript synced after its hooks ran) is found, not archived twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from cortex_tui.archive.messages import SaidMessage
from cortex_tui.config import PartsConfig
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.models import Memory, MemoryType, Scope
from cortex_tui.store.base import Parts, Store, Vector
from cortex_tui.write.parts import part_texts

_IDS = uuid.UUID("0f4b3c52-9d61-4c8e-a0f7-6a1de2b9c7a4")


@dataclass
class TurnToArchive:
    """What was said in one turn, and where; its vectors once embedded (outside any
    lock, as capture embeds its candidates)."""

    messages: list[SaidMessage]
    project: str | None
    session_id: str | None
    source: str
    said_at: datetime | None = None
    """When the turn was said, where its source tells (a synced transcript's line);
    else it is archived as said when it is captured."""
    vectors: Matrix | None = None
    parts: list[Parts] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """Its messages' ids in the archive (the same on every capture of the turn)."""
        return [record_id(self.session_id, message) for message in self.messages]

    @property
    def embedded(self) -> bool:
        return self.vectors is not None or not self.messages

    def texts(self, config: PartsConfig) -> list[str]:
        """What its vectors are made of: each sentence of a message of several (a part),
        and each message of one sentence whole."""
        found: list[str] = []
        for message in self.messages:
            found += part_texts(message.text, config) or [message.text]
        return found

    def embed(self, embedder: Embedder, config: PartsConfig) -> None:
        texts = self.texts(config)
        self.take(texts, embedder.embed(texts), config)

    def take(self, texts: Sequence[str], rows: Matrix, config: PartsConfig) -> None:
        """Its vectors from `rows`, the vectors of `texts` (which hold `self.texts()`,
        maybe among others: capture embeds a turn's candidates in the same call, and a
        candidate is often one of its sentences). A message of several sentences is
        not embedded whole: its own vector is the mean of its sentences' (normalised),
        which a long message's is close to, at none of the cost of the longest text a
        turn has."""
        row_of = {text: rows[index] for index, text in enumerate(texts)}
        vectors: list[Vector] = []
        self.parts = []
        for message in self.messages:
            pieces = part_texts(message.text, config)
            if not pieces:
                vectors.append(row_of[message.text])
                self.parts.append(np.zeros((0, rows.shape[1]), np.float32))
                continue
            matrix = np.asarray([row_of[piece] for piece in pieces], dtype=np.float32)
            mean = matrix.mean(axis=0)
            vectors.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
            self.parts.append(matrix)
        self.vectors = np.asarray(vectors, dtype=np.float32)


def record_id(session_id: str | None, message: SaidMessage) -> str:
    return str(uuid.uuid5(_IDS, f"{session_id or ''}\x1f{message.speaker}\x1f{message.text}"))


def archive_turn(
    store: Store,
    turn: TurnToArchive,
    at: datetime,
    embedder: Embedder,
    config: PartsConfig,
) -> None:
    """Archive the turn's messages as the next turn of its session (embedded here when
    they were not), unless they were archived before; said at `turn.said_at` when it is
    known, else `at`."""
    if not turn.messages:
        return
    archive = store.archive
    ids = turn.ids
    if len(archive.get_memories(ids)) == len(ids):
        return
    if not turn.embedded:
        turn.embed(embedder, config)
    vectors = turn.vectors
    assert vectors is not None  # embedded above
    number = next_turn(archive, turn.session_id)
    at = turn.said_at or at
    records = [
        Memory(
            id=point_id,
            content=message.text,
            type=MemoryType.FACT,
            scope=Scope.PERMANENT,
            project=turn.project,
            session_id=turn.session_id,
            turn=number,
            speaker=message.speaker,
            source=turn.source,
            created_at=said,
            updated_at=said,
            valid_from=said,
        )
        for index, (point_id, message) in enumerate(zip(ids, turn.messages, strict=True))
        # A turn's messages keep their order in their time: a microsecond apart.
        for said in [at + timedelta(microseconds=index)]
    ]
    archive.upsert_memories(records, list(vectors), parts=turn.parts)


def next_turn(archive: Store, session_id: str | None) -> int | None:
    """The position the session's next archived turn takes (None outside a session)."""
    if session_id is None:
        return None
    latest = archive.session_turn(session_id)
    return 0 if not latest or latest[0].turn is None else latest[0].turn + 1
