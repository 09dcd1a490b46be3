"""Searches that give the same candidates in every store built from the same data.

Among equally scored points at the cut, Qdrant returns an arbitrary subset in an order
that follows its index layout, which differs between two stores built from the same
data; BM25 scores tie often (one shared term, equal lengths). One hit past the cut shows
whether a tie crosses it; only then is the whole tie group looked up (ids and scores
alone) and cut by id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from cortex_tui.store.points import IDS_ONLY, Hit, Payload, best_then_id

TIE_MARGIN = 16  # ids fetched past a search's cut once scores are seen to tie across it
TIE_REACH = 8  # the farthest a search reaches for the rest of a tie group: 8 × its limit

Search = Callable[[int, Sequence[str] | None], list[Hit]]
"""One search of fixed query and condition: the top `n` hits, reading these payload
fields (`IDS_ONLY`: none)."""
Retrieve = Callable[[Sequence[str], Sequence[str] | None], Iterable[Payload]]
"""Payloads (these fields) of points by id."""


def settled_hits(
    search: Search, retrieve: Retrieve, limit: int, fields: Sequence[str] | None
) -> list[Hit]:
    """The top `limit` hits, equal scores in id order."""
    hits = search(limit + 1, fields)
    if len(hits) > limit and hits[limit].score == hits[limit - 1].score:
        hits = _settle_tie(search, retrieve, limit, hits, fields)
    return sorted(hits, key=best_then_id)[:limit]


def _settle_tie(
    search: Search,
    retrieve: Retrieve,
    limit: int,
    hits: list[Hit],
    fields: Sequence[str] | None,
) -> list[Hit]:
    boundary = hits[limit - 1].score
    fetch = limit + TIE_MARGIN
    while True:
        light = search(fetch, IDS_ONLY)
        if len(light) < fetch or light[-1].score < boundary or fetch >= limit * TIE_REACH:
            break
        fetch = min(fetch * 2, limit * TIE_REACH)
    chosen = sorted(light, key=best_then_id)[:limit]
    known = {h.id: h for h in hits}
    score = {h.id: h.score for h in chosen}
    missing = [memory_id for memory_id in score if memory_id not in known]
    if fields == IDS_ONLY:
        known.update((memory_id, Hit(memory_id, {}, score[memory_id])) for memory_id in missing)
    else:
        for payload in retrieve(missing, fields):
            memory_id = str(payload["id"])
            known[memory_id] = Hit(memory_id, payload, score[memory_id])
    return [known[memory_id] for memory_id in score if memory_id in known]
