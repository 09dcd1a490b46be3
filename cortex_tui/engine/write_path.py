"""The write path every new memory takes: duplicate, update, conflict, reinforce or new.

Order matters (the Go reference reinforced what was really an update): for each similar
current memory in the same project scope (cosine ≥ `related_threshold`), first ask the
judge whether the new statement *changes* it; only a statement that changes nothing may
fold into it.

- a value changed, with a change cue (or a later `valid_at`) → **update**: the old
  version is superseded (a rename also keeps the old name as an entity alias);
- a value changed, both claiming the present → **conflict**: one conflict group;
- the same words, or cosine ≥ `duplicate_threshold` → **duplicate**: folded;
- the same claim in other words → **reinforced**;
- anything else → a new memory.

The judge's softer verdicts need the embeddings to agree: an announced change with no
value seen to change is an update only from `change_threshold`, a paraphrase a
restatement from `restate_threshold`, and one naming more from `elaborate_threshold`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from cortex_tui.capture.contradiction import Judgement, Verdict, judge_offline
from cortex_tui.capture.judge import judge_with_llm
from cortex_tui.capture.rename import find_rename
from cortex_tui.clock import Clock
from cortex_tui.config import Settings
from cortex_tui.curation import journal
from cortex_tui.embed.base import Matrix
from cortex_tui.llm.base import LLMClient, LLMError
from cortex_tui.models import (
    ConflictStatus,
    Memory,
    WriteAction,
    WriteResult,
    new_id,
)
from cortex_tui.store.base import MemoryFilter, ScoredMemory, Store, WriteMemories

log = logging.getLogger(__name__)

Judge = Callable[[str, str], Judgement]


@dataclass(frozen=True, slots=True)
class _Match:
    existing: Memory
    similarity: float
    judgement: Judgement


class WritePath:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock,
        write: WriteMemories,
        judge: Judge | None = None,
    ) -> None:
        """`write` stores new memories (with their neighbour context); everything else
        goes to `store` directly."""
        self._store = store
        self._write = write
        self._config = settings.write
        self._clock = clock
        self._judge = judge or judge_offline

    def write(self, memory: Memory, vector: Matrix) -> WriteResult:
        """Decide what `memory` becomes and write it; `vector` is its embedding."""
        match = self._closest_relation(memory, vector)
        if match is None:
            self._write([memory], [vector])
            return WriteResult(
                action=WriteAction.CREATED,
                memory=memory,
                reason="no current memory it repeats, changes or contradicts",
            )
        verdict = match.judgement.verdict
        reason = match.judgement.reason
        if verdict == "contradiction" and _explicitly_later(memory, match.existing):
            verdict = "update"
            reason += "; the new statement is dated later"
        if verdict == "update":
            result = self._supersede(match.existing, memory, vector)
            renamed = find_rename(match.existing.content, memory.content)
            result = result.model_copy(update={"renamed": renamed})
        elif verdict == "contradiction":
            result = self._conflict(match.existing, memory, vector)
        else:
            action = WriteAction.DUPLICATE if self._is_duplicate(match) else WriteAction.REINFORCED
            result = self._reinforce(match.existing, memory, action)
        return result.model_copy(update={"reason": f"{reason} (cosine {match.similarity:.2f})"})

    def _closest_relation(self, memory: Memory, vector: Matrix) -> _Match | None:
        """The most similar neighbour the new memory changes or restates, if any.

        A neighbour the judge calls distinct (or whose softer verdict the embeddings do
        not back, see `_settle`) is passed over: a less similar one may still be the fact
        this statement updates. A restatement that is not a duplicate is kept only as a
        fallback, for the same reason.
        """
        best: _Match | None = None
        for hit in self._neighbours(memory, vector):
            if hit.score < self._config.related_threshold:
                break
            judgement = self._settle(self._judge(hit.memory.content, memory.content), hit.score)
            if judgement is None:
                continue
            candidate = _Match(hit.memory, hit.score, judgement)
            if judgement.verdict in ("update", "contradiction") or self._is_duplicate(candidate):
                # A statement already stored as it is folds into it even when it also
                # changes an older fact: that change was recorded when it first came.
                return candidate
            best = best or candidate
        return best

    def _settle(self, judgement: Judgement, similarity: float) -> Judgement | None:
        """The verdict once the embeddings have had their say; None for a distinct fact."""
        bands: dict[str, tuple[Verdict, float, str]] = {
            "change": ("update", self._config.change_threshold, "close in meaning"),
            "elaboration": ("paraphrase", self._config.elaborate_threshold, "close in meaning"),
            "paraphrase": ("paraphrase", self._config.restate_threshold, ""),
        }
        if judgement.verdict == "distinct":
            return None
        if judgement.verdict not in bands:
            return judgement
        verdict, floor, note = bands[judgement.verdict]
        if similarity < floor:
            return None
        return Judgement(verdict, f"{judgement.reason}, {note}" if note else judgement.reason)

    def _is_duplicate(self, match: _Match) -> bool:
        """The same words (case, articles, punctuation and contractions aside), or so
        close the embeddings cannot tell them apart."""
        return (
            match.judgement.verdict == "repeat"
            or match.similarity >= self._config.duplicate_threshold
        )

    def _neighbours(self, memory: Memory, vector: Matrix) -> list[ScoredMemory]:
        """Current memories of the same project scope, most similar first.

        A project memory is compared with its project and the global memories; a global
        one only with global memories (so a statement about one project never retires a
        general fact, and vice versa).
        """
        k = self._config.neighbours
        if memory.project:
            flt = MemoryFilter(project=memory.project)
            return self._store.search_dense(vector, flt, k)
        hits = self._store.search_dense(vector, MemoryFilter(), k * 4)
        return [h for h in hits if h.memory.project is None][:k]

    def _supersede(self, old: Memory, new: Memory, vector: Matrix) -> WriteResult:
        changed_at = max(new.valid_from, old.valid_from)
        current = new.model_copy(update={"supersedes_id": old.id, "valid_from": changed_at})
        retired = old.model_copy(
            update={
                "valid_to": changed_at,
                "superseded_by_id": current.id,
                "updated_at": self._clock(),
            }
        )
        journal.record(
            self._store, "capture:supersede", self._clock(), before=[old], created=[current.id]
        )
        self._write([current], [vector])
        self._store.update_memories([retired])
        return WriteResult(action=WriteAction.SUPERSEDED, memory=current, related=retired)

    def _conflict(self, existing: Memory, new: Memory, vector: Matrix) -> WriteResult:
        if existing.conflict_status is ConflictStatus.ACTIVE and existing.conflict_group_id:
            group = existing.conflict_group_id
            members = self._group_members(group) or [existing]
        else:
            group, members = new_id(), [existing]
        member_ids = [m.id for m in members]
        joined = new.model_copy(
            update={
                "conflict_group_id": group,
                "conflict_status": ConflictStatus.ACTIVE,
                "contradicts_ids": member_ids,
            }
        )
        updated = [
            m.model_copy(
                update={
                    "conflict_group_id": group,
                    "conflict_status": ConflictStatus.ACTIVE,
                    "contradicts_ids": list(dict.fromkeys([*m.contradicts_ids, joined.id])),
                    "updated_at": self._clock(),
                }
            )
            for m in members
        ]
        journal.record(
            self._store, "capture:conflict", self._clock(), before=members, created=[joined.id]
        )
        self._write([joined], [vector])
        self._store.update_memories(updated)
        return WriteResult(action=WriteAction.CONFLICT, memory=joined, related=updated[0])

    def _group_members(self, group: str) -> list[Memory]:
        active = MemoryFilter(conflict_statuses=[ConflictStatus.ACTIVE])
        return [m for m in self._store.iter_memories(active) if m.conflict_group_id == group]

    def _reinforce(self, existing: Memory, new: Memory, action: WriteAction) -> WriteResult:
        reinforced = existing.model_copy(
            update={
                "confidence": min(1.0, existing.confidence + self._config.reinforce_step),
                "reinforced_count": existing.reinforced_count + 1,
                "tags": list(dict.fromkeys([*existing.tags, *new.tags])),
                "updated_at": self._clock(),
            }
        )
        self._store.update_memories([reinforced])
        log.debug("%s %s into %s", action.value, new.content[:60], existing.short_id)
        return WriteResult(action=action, memory=reinforced, related=existing)


def _explicitly_later(new: Memory, old: Memory) -> bool:
    """The new statement carries its own validity time (a `valid_at` from extraction),
    and it is later than the old one's: a contradiction that says which is newer."""
    return new.valid_from != new.created_at and new.valid_from > old.valid_from


def llm_judge(llm: LLMClient | None, timeout: float) -> Judge | None:
    """The LLM's judgement when one is configured; the offline one when a call fails."""
    if llm is None:
        return None
    client = llm

    def judge(old: str, new: str) -> Judgement:
        try:
            verdict = judge_with_llm(client, new, old, timeout=timeout)
        except LLMError as exc:
            log.warning("LLM judge failed, using the offline judge: %s", exc)
            return judge_offline(old, new)
        kind = "distinct" if verdict == "unrelated" else verdict
        return Judgement(kind, f"{client.name} says {verdict}")

    return judge
