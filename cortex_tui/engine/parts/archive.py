"""`LocalArchive`: the turn archive as a person reads it (`cortex_tui/archive/`): its
sessions, a session's messages in the order they were said, and a search over them.
(The archive of captured turns, not a memory's `archived` status.)"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from cortex_tui.engine.core import EngineCore
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.models import ArchivedMessage, ArchivedSession, Memory, Quote
from cortex_tui.recall.channels.archive import ArchiveChannel, ArchiveQuery
from cortex_tui.store.base import MemoryFilter

EVERYTHING = MemoryFilter(current_only=False, statuses=None)
_OUTLINE = ("session_id", "project", "source", "created_at", "turn")


class LocalArchive:
    def __init__(self, core: EngineCore, channel: ArchiveChannel | None) -> None:
        self._core = core
        self._channel = channel

    def sessions(self, project: str | None = None, limit: int = 50) -> list[ArchivedSession]:
        flt = EVERYTHING
        if project is not None:
            resolved = self._core.projects.resolve(project)
            flt = flt.model_copy(update={"project": resolved, "project_only": True})
        outlines: dict[str, _Outline] = {}
        for row in self._core.store.archive.scan_memories(flt, _OUTLINE):
            session = row.get("session_id")
            if not session:
                continue
            said = datetime.fromisoformat(str(row["created_at"]))
            found = outlines.get(session)
            if found is None:
                outlines[session] = _Outline(row, said)
            else:
                found.add(row, said)
        newest = sorted(outlines.values(), key=lambda o: (o.last, o.session), reverse=True)
        return [outline.session_model() for outline in newest[:limit]]

    def session(self, session_id: str) -> list[ArchivedMessage]:
        """Every message of one session (its id, or the start of one), in order."""
        flt = EVERYTHING.model_copy(update={"session_id": session_id})
        records = list(self._core.store.archive.iter_memories(flt))
        if not records:
            records = self._by_start(session_id)
        records.sort(key=lambda r: (r.turn if r.turn is not None else -1, r.created_at))
        return [_message(self._core.shown(record)) for record in records]

    def said_in(self, memory_id: str) -> list[ArchivedMessage]:
        memory = self._core.stored(memory_id)
        records = self._core.store.archive.get_memories(memory.said_in)
        records.sort(key=lambda r: r.created_at)
        return [_message(self._core.shown(record)) for record in records]

    def search(self, query: str, project: str | None = None, limit: int = 10) -> list[Quote]:
        if not query.strip():
            raise InvalidInputError("nothing to search for: the query is empty")
        if self._channel is None:
            raise InvalidInputError(
                "the turn archive is off (archive.enabled = false): nothing to search"
            )
        core = self._core
        flt = MemoryFilter(project=core.projects.resolve(project) if project else None)
        asked = ArchiveQuery(query, core.embedder.embed_query(query), flt, 0.0)
        return self._channel.search(core.store, asked, limit)

    def _by_start(self, start: str) -> list[Memory]:
        sessions = [s.session_id for s in self.sessions(limit=10**9)]
        matching = [s for s in sessions if s.startswith(start)]
        if not matching:
            raise NotFoundError(f"no archived session {start!r}; `cortex-tui sessions` lists them")
        if len(matching) > 1:
            raise InvalidInputError(
                f"{len(matching)} archived sessions start with {start!r}; give more of the id"
            )
        flt = EVERYTHING.model_copy(update={"session_id": matching[0]})
        return list(self._core.store.archive.iter_memories(flt))


class _Outline:
    def __init__(self, row: Mapping[str, Any], said: datetime) -> None:
        self.session = str(row["session_id"])
        self.project = row.get("project")
        self.source = str(row.get("source") or "")
        self.first = self.last = said
        self.turns = {row.get("turn")}
        self.messages = 1

    def add(self, row: Mapping[str, Any], said: datetime) -> None:
        self.first = min(self.first, said)
        self.last = max(self.last, said)
        self.turns.add(row.get("turn"))
        self.messages += 1

    def session_model(self) -> ArchivedSession:
        return ArchivedSession(
            session_id=self.session,
            project=str(self.project) if self.project else None,
            source=self.source,
            first_said=self.first,
            last_said=self.last,
            turns=len(self.turns - {None}),
            messages=self.messages,
        )


def _message(record: Memory) -> ArchivedMessage:
    return ArchivedMessage(
        id=record.id,
        session_id=record.session_id,
        turn=record.turn,
        speaker=record.speaker,
        text=record.content,
        said_at=record.created_at,
        project=record.project,
        source=record.source,
    )
