"""Conflict auto-resolution, and the rule that a person's decision is never overridden.

A group is resolved automatically only while nobody has touched it: every member still
`active` and current. A `dismissed` or `resolved` member, a member a person forgot or
that an earlier phase archived, or a resolve / merge / dismiss of the group in the
curation journal each mean a person has (partly) decided, and the group is left as it is.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from cortex_tui.curation.groups import retire_in_favour_of
from cortex_tui.models import ConflictStatus, Memory
from cortex_tui.store.base import MemoryFilter, Store

# Journal actions that are a person's decision about a conflict group (engine/curation).
PERSON_ACTIONS = frozenset({"resolve", "merge", "dismiss"})
# How far back the journal is read for those decisions; the journal has no paging, and
# decisions older than this many curation actions are long settled.
JOURNAL_SCAN = 10_000
_IN_A_GROUP = [ConflictStatus.ACTIVE, ConflictStatus.RESOLVED, ConflictStatus.DISMISSED]


@dataclass(frozen=True, slots=True)
class Decision:
    group_id: str
    winner: Memory
    losers: list[Memory]


def person_decided_groups(store: Store) -> set[str]:
    """Conflict groups a person resolved, merged or dismissed, per the journal."""
    groups: set[str] = set()
    for entry in store.journal(limit=JOURNAL_SCAN):
        if entry.action in PERSON_ACTIONS:
            for before in entry.payload.get("before", []):
                group = before.get("conflict_group_id")
                if group:
                    groups.add(str(group))
    return groups


def find_decisions(
    store: Store, *, skip_ids: set[str], protected_groups: set[str]
) -> list[Decision]:
    """Per untouched active group: keep the highest confidence (tie: the newest).

    Every version and status is read (not only current active ones) so a member that
    was superseded, forgotten or archived marks its group as not untouched.
    """
    everything = MemoryFilter(current_only=False, statuses=None, conflict_statuses=_IN_A_GROUP)
    groups: dict[str, list[Memory]] = defaultdict(list)
    for memory in store.iter_memories(everything):
        if memory.conflict_group_id:
            groups[memory.conflict_group_id].append(memory)
    decisions: list[Decision] = []
    for group_id, members in sorted(groups.items()):
        untouched = all(
            m.conflict_status is ConflictStatus.ACTIVE and m.is_current and m.id not in skip_ids
            for m in members
        )
        if group_id in protected_groups or not untouched or len(members) < 2:
            continue
        ranked = sorted(members, key=lambda m: (m.confidence, m.created_at, m.id), reverse=True)
        decisions.append(Decision(group_id, ranked[0], ranked[1:]))
    return decisions


def resolve(decision: Decision, now: datetime) -> list[Memory]:
    """The same writes as a person's `resolve`."""
    return retire_in_favour_of(decision.winner, decision.losers, now)
