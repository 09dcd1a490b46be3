"""Decisions a person makes about memories: resolve, merge or dismiss a conflict group,
restore an old version. Each records a journal entry first, so `undo` can reverse it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from cortex_tui.clock import Clock
from cortex_tui.curation import journal
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.models import ConflictStatus, Memory, new_id
from cortex_tui.store.base import MemoryFilter, Store, Vector, WriteMemories


class ConflictGroup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    members: list[Memory]


class Curator:
    def __init__(self, store: Store, clock: Clock, write: WriteMemories) -> None:
        """`write` stores new memories (with their neighbour context)."""
        self._store = store
        self._clock = clock
        self._write = write

    def conflicts(self) -> list[ConflictGroup]:
        """Groups awaiting resolution, oldest first; members oldest first."""
        groups: dict[str, list[Memory]] = defaultdict(list)
        active = MemoryFilter(conflict_statuses=[ConflictStatus.ACTIVE])
        for memory in self._store.iter_memories(active):
            if memory.conflict_group_id:
                groups[memory.conflict_group_id].append(memory)
        result = [
            ConflictGroup(id=gid, members=sorted(ms, key=lambda m: (m.created_at, m.id)))
            for gid, ms in groups.items()
        ]
        return sorted(result, key=lambda g: (g.members[0].created_at, g.id))

    def group(self, group_id: str) -> ConflictGroup:
        matches = [g for g in self.conflicts() if g.id.startswith(group_id)]
        if not matches:
            raise NotFoundError(
                f"no conflict group {group_id} awaits resolution; list them with "
                "`cortex-tui conflicts`"
            )
        if len(matches) > 1:
            raise InvalidInputError(f"group prefix {group_id} is ambiguous; give more characters")
        return matches[0]

    def resolve(self, group_id: str, keep_id: str) -> Memory:
        """Keep one member; the others are superseded by it and marked resolved."""
        group = self.group(group_id)
        kept = next((m for m in group.members if m.id.startswith(keep_id)), None)
        if kept is None:
            raise InvalidInputError(f"memory {keep_id} is not a member of group {group.id[:8]}")
        now = self._clock()
        journal.record(self._store, "resolve", now, before=group.members)
        changed = retire_in_favour_of(kept, [m for m in group.members if m.id != kept.id], now)
        self._store.update_memories(changed)
        return changed[0]

    def merge(
        self, group_id: str, content: str, vector: Vector, author: str | None = None
    ) -> Memory:
        """One new memory, written by a person, supersedes every member; `author`: the
        team member who wrote it, on team memory."""
        group = self.group(group_id)
        if not content.strip():
            raise InvalidInputError("merged content is empty; give the text that replaces them")
        now = self._clock()
        first = group.members[0]
        merged = first.model_copy(
            update={
                "id": new_id(),
                "content": content.strip(),
                "created_at": now,
                "updated_at": now,
                "valid_from": now,
                "valid_to": None,
                "supersedes_id": first.id,
                "superseded_by_id": None,
                "conflict_group_id": group.id,
                "conflict_status": ConflictStatus.RESOLVED,
                "contradicts_ids": [],
                "confidence": max(m.confidence for m in group.members),
                "tags": list(dict.fromkeys(t for m in group.members for t in m.tags)),
                "reinforced_count": sum(m.reinforced_count for m in group.members),
                "access_count": sum(m.access_count for m in group.members),
                "source": "merge",
                "author": author,
            }
        )
        merged = Memory.model_validate(merged.model_dump())
        journal.record(self._store, "merge", now, before=group.members, created=[merged.id])
        self._write([merged], [vector])
        self._store.update_memories(
            [
                m.model_copy(
                    update={
                        "valid_to": now,
                        "superseded_by_id": merged.id,
                        "conflict_status": ConflictStatus.RESOLVED,
                        "updated_at": now,
                    }
                )
                for m in group.members
            ]
        )
        return merged

    def dismiss(self, group_id: str) -> list[Memory]:
        """Not a conflict: members stay current, marked dismissed, so the pair is never
        raised again (lifecycle and the write path skip dismissed members)."""
        group = self.group(group_id)
        now = self._clock()
        journal.record(self._store, "dismiss", now, before=group.members)
        dismissed = [
            m.model_copy(update={"conflict_status": ConflictStatus.DISMISSED, "updated_at": now})
            for m in group.members
        ]
        self._store.update_memories(dismissed)
        return dismissed

    def restore(self, old: Memory, current: Memory, vector: Vector) -> Memory:
        """Make an old version current again as a new version; the past is not rewritten."""
        if old.id == current.id:
            raise InvalidInputError(f"memory {old.short_id} is already the current version")
        now = self._clock()
        restored = old.model_copy(
            update={
                "id": new_id(),
                "created_at": now,
                "updated_at": now,
                "valid_from": now,
                "valid_to": None,
                "supersedes_id": current.id,
                "superseded_by_id": None,
                "conflict_group_id": None,
                "conflict_status": ConflictStatus.NONE,
                "contradicts_ids": [],
                "source": f"restore:{old.id}",
            }
        )
        restored = Memory.model_validate(restored.model_dump())
        journal.record(self._store, "restore", now, before=[current], created=[restored.id])
        self._write([restored], [vector])
        self._store.update_memories(
            [
                current.model_copy(
                    update={"valid_to": now, "superseded_by_id": restored.id, "updated_at": now}
                )
            ]
        )
        return restored


def retire_in_favour_of(winner: Memory, losers: list[Memory], now: datetime) -> list[Memory]:
    """The winner and the losers of a conflict resolution as they must be written: the
    losers superseded by the winner (so recall drops them for real), all marked resolved.
    The winner comes first."""
    retired = [
        m.model_copy(
            update={
                "valid_to": now,
                "superseded_by_id": winner.id,
                "conflict_status": ConflictStatus.RESOLVED,
                "updated_at": now,
            }
        )
        for m in losers
    ]
    kept = winner.model_copy(
        update={
            "conflict_status": ConflictStatus.RESOLVED,
            "updated_at": now,
            "supersedes_id": winner.supersedes_id or (losers[0].id if losers else None),
        }
    )
    return [kept, *retired]
