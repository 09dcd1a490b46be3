"""Consolidation: fold near-duplicate current memories into one, keeping the history.

Duplicates are found with the store's own neighbour search over the vectors it already
holds (`get_vectors` + `search_dense`, filtered to the same project, type and scope), so
a run embeds nothing and never compares every pair in Python: one filtered query per
memory that is not already part of a cluster.

Clusters are stars, not chains: memories are visited best first (highest confidence,
then most accessed, then oldest), and each unclaimed one claims its unclaimed neighbours
at or above the threshold. Every folded memory is therefore a near-duplicate of the one
it folds into; a chain A≈B≈C whose ends differ is never collapsed into one statement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from cortex_tui.models import ConflictStatus, Memory
from cortex_tui.store.base import MemoryFilter, Store

# First page of neighbours per query; doubled while the page is all above the threshold,
# so a cluster larger than a page is still found whole.
NEIGHBOURS = 16
# Vectors fetched per round trip while walking the candidates.
VECTOR_BATCH = 256
# Never merged: members of a conflict awaiting a decision, and pairs a person declared
# compatible (dismissed).
_UNTOUCHABLE = [ConflictStatus.ACTIVE, ConflictStatus.DISMISSED]


@dataclass(frozen=True, slots=True)
class Cluster:
    survivor: Memory
    members: list[Memory]


def priority(memory: Memory) -> tuple[float, int, datetime, str]:
    """Sort key, best first: highest confidence, most accessed, oldest (id breaks ties)."""
    return (-memory.confidence, -memory.access_count, memory.created_at, memory.id)


def find_clusters(
    store: Store, threshold: float, *, skip_ids: set[str], protected_groups: set[str]
) -> list[Cluster]:
    """Clusters of near-duplicates among current active memories.

    `skip_ids` are memories an earlier phase retires in this run (still active in a dry
    run); `protected_groups` are conflict groups a person decided, whose members keep the
    form the person chose.
    """
    candidates = {
        m.id: m
        for m in store.iter_memories(MemoryFilter(exclude_conflict_statuses=_UNTOUCHABLE))
        if m.id not in skip_ids and m.conflict_group_id not in protected_groups
    }
    order = sorted(candidates.values(), key=priority)
    claimed: set[str] = set()
    clusters: list[Cluster] = []
    for start in range(0, len(order), VECTOR_BATCH):
        page = [m for m in order[start : start + VECTOR_BATCH] if m.id not in claimed]
        vectors = store.get_vectors([m.id for m in page])
        for memory in page:
            if memory.id in claimed or memory.id not in vectors:
                continue
            near = _neighbours(store, memory, vectors[memory.id], threshold)
            members = [candidates[i] for i in near if i in candidates and i not in claimed]
            members = [m for m in members if m.id != memory.id]
            if not members:
                continue
            # Best first already, but an approximate (HNSW) search may have missed a
            # better memory's neighbour: the rule "best member survives" holds anyway.
            survivor, *rest = sorted([memory, *members], key=priority)
            claimed.update(m.id for m in (survivor, *rest))
            clusters.append(Cluster(survivor, rest))
    return clusters


def _neighbours(
    store: Store, memory: Memory, vector: Sequence[float], threshold: float
) -> list[str]:
    """Ids of current memories of the same project, type and scope at cosine ≥ `threshold`.

    Same scope as well: folding a permanent fact into a session memory that happens to
    be more confident would let session decay archive the fact with it.
    A global memory (no project) only merges with global ones: the store's project
    filter would add every project's memories, so those are dropped after the query and
    the page grows until it reaches below the threshold.
    """
    flt = MemoryFilter(
        project=memory.project,
        project_only=memory.project is not None,
        types=[memory.type],
        scopes=[memory.scope],
        exclude_conflict_statuses=_UNTOUCHABLE,
    )
    limit = NEIGHBOURS
    while True:
        hits = store.search_dense(vector, flt, limit)
        if len(hits) < limit or hits[-1].score < threshold:
            break
        limit *= 2
    same_project = (h for h in hits if h.memory.project == memory.project)
    return [h.memory.id for h in same_project if h.score >= threshold]


def merge(cluster: Cluster, now: datetime) -> list[Memory]:
    """The survivor with the cluster's counters, then each member superseded by it.

    Tags are united, access and reinforcement counts summed (each folded member also
    counts as one reinforcement: it restated the survivor), confidence is the highest.
    The survivor's `supersedes_id` points at a folded member when it had no predecessor,
    so `history` of the survivor reaches the merged versions.
    """
    survivor, members = cluster.survivor, cluster.members
    everyone = [survivor, *members]
    merged = survivor.model_copy(
        update={
            "tags": list(dict.fromkeys(t for m in everyone for t in m.tags)),
            "access_count": sum(m.access_count for m in everyone),
            "reinforced_count": sum(m.reinforced_count for m in everyone) + len(members),
            "confidence": max(m.confidence for m in everyone),
            "last_accessed": _latest(m.last_accessed for m in everyone),
            "supersedes_id": survivor.supersedes_id or members[0].id,
            "updated_at": now,
        }
    )
    retired = [
        m.model_copy(update={"valid_to": now, "superseded_by_id": survivor.id, "updated_at": now})
        for m in members
    ]
    return [merged, *retired]


def _latest(times: Iterable[datetime | None]) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None
