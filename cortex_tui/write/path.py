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

A fold (duplicate or reinforced) stands only when both statements agree on every slot
— values, negation, modality, scope, polarity (`write/judge/slots.py`) — whoever proposed
it: a fold would keep the old words alone and lose the newer claim.

A correction by the person ("No, use pnpm, not npm") says which claim holds: what it
contradicts is updated, never left beside it as a conflict, and a neighbour close in
meaning that states what it names as wrong is updated too.

The judge's softer verdicts need the embeddings to agree: an announced change with no
value seen to change is an update only from `change_threshold`, a paraphrase a
restatement from `restate_threshold`, and one naming more from `elaborate_threshold`.
Close calls may go to a pair model or an LLM (`write/judge/decision.py`).

Every decision is kept with its reason (`Memory.decisions`): on the new version of an
update, on the memory that joins a conflict group, on the memory a repeat or paraphrase
folds into (with the statement it absorbed); supersessions and conflicts are journalled
with the reason too, so undoing one says what it undoes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from cortex_tui.clock import Clock
from cortex_tui.config import Settings
from cortex_tui.curation import journal
from cortex_tui.embed.base import Matrix
from cortex_tui.models import (
    RULES_JUDGE,
    ConflictStatus,
    Decision,
    Memory,
    WriteAction,
    WriteResult,
    new_id,
    with_decision,
)
from cortex_tui.store.base import MemoryFilter, ScoredMemory, Store, WriteMemories
from cortex_tui.write.judge.contradiction import PairCall
from cortex_tui.write.judge.correction import corrected_value
from cortex_tui.write.judge.decision import Ruling, StatementBudget, WriteJudge
from cortex_tui.write.judge.rename import find_rename

log = logging.getLogger(__name__)

NOTHING_RELATED = "no current memory it repeats, changes or contradicts"


@dataclass(frozen=True, slots=True)
class _Match:
    existing: Memory
    similarity: float
    ruling: Ruling


class WritePath:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock,
        write: WriteMemories,
        judge: WriteJudge,
    ) -> None:
        """`write` stores new memories (with their neighbour context); everything else
        goes to `store` directly."""
        self._store = store
        self._write = write
        self._config = settings.write
        self._clock = clock
        self._judge = judge

    def write(self, memory: Memory, vector: Matrix, *, corrects: bool = False) -> WriteResult:
        """Decide what `memory` becomes and write it; `vector` is its embedding, and
        `corrects` says the person set something right with it."""
        match, closest = self._closest_relation(memory, vector, corrects)
        if match is None:
            return self._create(memory, vector, closest)
        verdict = match.ruling.call.verdict
        reason = match.ruling.call.reason
        if verdict == "contradiction" and _explicitly_later(memory, match.existing):
            verdict = "update"
            reason += "; the new statement is dated later"
        reason = _explained(reason, match)
        if verdict == "update":
            action = WriteAction.SUPERSEDED
        elif verdict == "contradiction":
            action = WriteAction.CONFLICT
        elif self._is_duplicate(match):
            action = WriteAction.DUPLICATE
        else:
            action = WriteAction.REINFORCED
        decision = Decision(
            action=action,
            reason=reason,
            judge=match.ruling.judge,
            related_id=match.existing.id,
            at=self._clock(),
        )
        if action is WriteAction.SUPERSEDED:
            result = self._supersede(match.existing, memory, vector, decision)
            renamed = find_rename(match.existing.content, memory.content)
            result = result.model_copy(update={"renamed": renamed})
        elif action is WriteAction.CONFLICT:
            result = self._conflict(match.existing, memory, vector, decision)
        else:
            result = self._reinforce(match.existing, memory, decision)
        return result.model_copy(
            update={
                "reason": reason,
                "judge": match.ruling.judge,
                "close_call": match.ruling.close_call,
            }
        )

    def _create(self, memory: Memory, vector: Matrix, closest: _Match | None) -> WriteResult:
        """Store `memory` as new; when a neighbour was judged and passed over, the
        decision says which and why (the call a person may want to check)."""
        if closest is None:
            self._write([memory], [vector])
            return WriteResult(action=WriteAction.CREATED, memory=memory, reason=NOTHING_RELATED)
        reason = _explained(
            f"the closest, {closest.existing.short_id}, is another fact: "
            f"{closest.ruling.call.reason}",
            closest,
        )
        decision = Decision(
            action=WriteAction.CREATED,
            reason=reason,
            judge=closest.ruling.judge,
            related_id=closest.existing.id,
            at=self._clock(),
        )
        created = memory.model_copy(update={"decisions": with_decision(memory.decisions, decision)})
        self._write([created], [vector])
        return WriteResult(
            action=WriteAction.CREATED,
            memory=created,
            reason=reason,
            judge=closest.ruling.judge,
            close_call=closest.ruling.close_call,
        )

    def _closest_relation(
        self, memory: Memory, vector: Matrix, corrects: bool
    ) -> tuple[_Match | None, _Match | None]:
        """The most similar neighbour the new memory changes or restates, if any; and
        the closest neighbour judged another fact (to explain a new memory).

        A neighbour the judge calls distinct (or whose softer verdict the embeddings do
        not back) is passed over: a less similar one may still be the fact this
        statement updates. A restatement that is not a duplicate is kept only as a
        fallback, for the same reason.
        """
        best: _Match | None = None
        passed: _Match | None = None
        budget: StatementBudget = self._judge.budget()
        for hit in self._neighbours(memory, vector):
            if hit.score < self._config.related_threshold:
                break
            ruling = self._judge.rule(hit.memory.content, memory.content, hit.score, budget)
            if corrects:
                ruling = self._as_correction(ruling, hit, memory.content)
            candidate = _Match(hit.memory, hit.score, ruling)
            if ruling.distinct:
                passed = passed or candidate
                continue
            verdict = ruling.call.verdict
            if verdict in ("update", "contradiction") or self._is_duplicate(candidate):
                # A statement already stored as it is folds into it even when it also
                # changes an older fact: that change was recorded when it first came.
                return candidate, passed
            best = best or candidate
        return best, passed

    def _as_correction(self, ruling: Ruling, hit: ScoredMemory, correction: str) -> Ruling:
        """The ruling once the person's correction has settled which claim holds: a
        contradiction is an update, and so is a neighbour that states what the
        correction names as wrong, when it is as close in meaning as an announced
        change must be."""
        judgement = ruling.call
        if judgement.verdict == "contradiction":
            return replace(
                ruling,
                call=PairCall("update", f"{judgement.reason}; the person corrected it"),
            )
        if judgement.verdict == "repeat" or hit.score < self._config.change_threshold:
            return ruling
        wrong = corrected_value(correction, hit.memory.content)
        if wrong is None:
            return ruling
        return replace(ruling, call=PairCall("update", f"the person corrected it: not {wrong}"))

    def _is_duplicate(self, match: _Match) -> bool:
        """The same words (case, articles, punctuation and contractions aside), or so
        close the embeddings cannot tell them apart."""
        return (
            match.ruling.call.verdict == "repeat"
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

    def _supersede(
        self, old: Memory, new: Memory, vector: Matrix, decision: Decision
    ) -> WriteResult:
        changed_at = max(new.valid_from, old.valid_from)
        current = new.model_copy(
            update={
                "supersedes_id": old.id,
                "valid_from": changed_at,
                "decisions": with_decision(new.decisions, decision),
            }
        )
        retired = old.model_copy(
            update={
                "valid_to": changed_at,
                "superseded_by_id": current.id,
                "updated_at": self._clock(),
            }
        )
        journal.record(
            self._store,
            "capture:supersede",
            self._clock(),
            before=[old],
            created=[current.id],
            note=decision.describe(),
        )
        self._write([current], [vector])
        self._store.update_memories([retired])
        return WriteResult(action=WriteAction.SUPERSEDED, memory=current, related=retired)

    def _conflict(
        self, existing: Memory, new: Memory, vector: Matrix, decision: Decision
    ) -> WriteResult:
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
                "decisions": with_decision(new.decisions, decision),
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
            self._store,
            "capture:conflict",
            self._clock(),
            before=members,
            created=[joined.id],
            note=decision.describe(),
        )
        self._write([joined], [vector])
        self._store.update_memories(updated)
        return WriteResult(action=WriteAction.CONFLICT, memory=joined, related=updated[0])

    def _group_members(self, group: str) -> list[Memory]:
        active = MemoryFilter(conflict_statuses=[ConflictStatus.ACTIVE], conflict_group_id=group)
        return list(self._store.iter_memories(active))

    def _reinforce(self, existing: Memory, new: Memory, decision: Decision) -> WriteResult:
        """Fold `new` into `existing`; the statement is kept in the decision, since a
        repeat or paraphrase is not stored as a memory of its own."""
        folded = decision.model_copy(update={"statement": new.content, "related_id": None})
        reinforced = existing.model_copy(
            update={
                "decisions": with_decision(existing.decisions, folded),
                "confidence": min(1.0, existing.confidence + self._config.reinforce_step),
                "reinforced_count": existing.reinforced_count + 1,
                "tags": list(dict.fromkeys([*existing.tags, *new.tags])),
                "updated_at": self._clock(),
            }
        )
        self._store.update_memories([reinforced])
        log.debug("%s %s into %s", decision.action.value, new.content[:60], existing.short_id)
        return WriteResult(action=decision.action, memory=reinforced, related=existing)


def _explained(reason: str, match: _Match) -> str:
    """The reason with the cosine it was judged at, and the close call a pair model or
    an LLM settled (so a reader knows why the rules did not decide alone)."""
    reason = f"{reason.rstrip('. ')} (cosine {match.similarity:.2f})"
    if match.ruling.close_call is not None and match.ruling.judge != RULES_JUDGE:
        reason += f"; a close call for the rules: {match.ruling.close_call}"
    return reason


def _explicitly_later(new: Memory, old: Memory) -> bool:
    """The new statement carries its own validity time (a `valid_at` from extraction),
    and it is later than the old one's: a contradiction that says which is newer."""
    return new.valid_from != new.created_at and new.valid_from > old.valid_from
