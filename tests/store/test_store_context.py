"""The store's side of neighbour context, on every backend: context vectors, the previous
turn's words in the lexical index, a session's turns."""

from __future__ import annotations

import pytest

from cortex_tui.errors import InvalidInputError
from cortex_tui.models import MemoryStatus
from cortex_tui.store.base import IndexContext, MemoryFilter, ScoredMemory, Store

from .helpers import make_memory, unit_vectors

ALL = MemoryFilter(statuses=None, current_only=False)


def _ids(scored: list[ScoredMemory]) -> list[str]:
    return [s.memory.id for s in scored]


def test_context_vectors_are_a_search_of_their_own(store: Store) -> None:
    assert store.indexes_context
    answer = make_memory("Yes, the blue one", session_id="s", turn=1)
    alone = make_memory("The wiki moved to Notion")
    own, context, other = unit_vectors(3, seed=5)
    contexts = [IndexContext("Which kayak did you buy?", context, 0.5), None]
    store.upsert_memories([answer, alone], [own, other], contexts)
    # The model read back is the memory's own: context is index-side only.
    assert store.get_memories([answer.id]) == [answer]
    [(found, cosine)] = store.search_ids(context, ALL, 5, context=True)
    assert found == answer.id and cosine == pytest.approx(1.0, abs=1e-5)
    # The same search over the own vectors: ids and cosines, nearest first.
    nearest = store.search_ids(other, ALL, 5)
    assert [found for found, _ in nearest] == [alone.id, answer.id]
    assert nearest[0][1] == pytest.approx(1.0, abs=1e-5)
    vectors = store.get_vectors([answer.id, alone.id], context=True)
    assert set(vectors) == {answer.id} and vectors[answer.id] == pytest.approx(context, abs=1e-6)
    assert store.get_vectors([answer.id])[answer.id] == pytest.approx(own, abs=1e-6)


def test_cosines_are_computed_where_the_vectors_are(store: Store) -> None:
    answer = make_memory("Yes, the blue one", session_id="s", turn=1)
    alone = make_memory("The wiki moved to Notion")
    own, context, other = unit_vectors(3, seed=8)
    store.upsert_memories(
        [answer, alone], [own, other], [IndexContext("Which kayak?", context, 0.5), None]
    )
    named = [answer.id, alone.id, make_memory("never stored").id]
    cosines = store.cosines(context, named)
    assert set(cosines) == {answer.id, alone.id}  # an unknown id is absent
    for memory_id, stored in store.get_vectors(named).items():
        expected = sum(a * b for a, b in zip(stored, context, strict=True))
        assert cosines[memory_id] == pytest.approx(expected, abs=1e-5)
    # Context cosines only for memories with a context vector.
    assert store.cosines(context, named, context=True) == pytest.approx({answer.id: 1.0}, abs=1e-5)
    assert store.cosines(context, []) == {}


def test_previous_turn_words_count_at_their_weight(store: Store) -> None:
    said = make_memory("I bought a kayak and paddled the lake")
    answer = make_memory("Yes and I paddled the lake twice", session_id="s", turn=1)
    unweighted = make_memory("Sure, I paddled the lake once more", session_id="s", turn=2)
    store.upsert_memories(
        [said, answer, unweighted],
        unit_vectors(3),
        [None, IndexContext("Did you buy a kayak?", None, 0.5), IndexContext("kayak", None, 0.0)],
    )
    scores = store.lexical_scores("kayak", [said.id, answer.id, unweighted.id])
    assert set(scores) == {said.id, answer.id}  # weight 0: the word is not indexed
    assert scores[said.id] > scores[answer.id] > 0


def test_payload_updates_keep_the_context_and_reindex_tags_and_speaker(store: Store) -> None:
    answer = make_memory("Yes, the blue one", session_id="s", turn=1, speaker="Caroline")
    store.upsert_memories(
        [answer], unit_vectors(1), [IndexContext("Which kayak did you buy?", None, 0.5)]
    )
    assert _ids(store.search_lexical("caroline", ALL, 5)) == [answer.id]
    changed = answer.model_copy(update={"speaker": "Melanie", "tags": ["boats"]})
    store.update_memories([changed])
    assert store.get_memories([answer.id]) == [changed]
    assert _ids(store.search_lexical("melanie boats", ALL, 5)) == [answer.id]
    assert store.search_lexical("caroline", ALL, 5) == []
    assert _ids(store.search_lexical("kayak", ALL, 5)) == [answer.id]  # context kept
    store.update_memories([changed.model_copy(update={"access_count": 3})])
    assert _ids(store.search_lexical("kayak", ALL, 5)) == [answer.id]


def test_session_turn_gives_the_latest_turn_before(store: Store) -> None:
    memories = [
        make_memory("first", session_id="s", turn=0),
        make_memory("second, part one", session_id="s", turn=1),
        make_memory("second, part two", session_id="s", turn=1, status=MemoryStatus.DELETED),
        make_memory("fourth", session_id="s", turn=3),
        make_memory("another session", session_id="t", turn=7),
        make_memory("no turn at all", session_id="s"),
    ]
    store.upsert_memories(memories, unit_vectors(len(memories)))
    assert [m.content for m in store.session_turn("s")] == ["fourth"]
    assert sorted(m.content for m in store.session_turn("s", before=3)) == [
        "second, part one",
        "second, part two",
    ]
    assert [m.content for m in store.session_turn("s", before=1)] == ["first"]
    assert store.session_turn("s", before=0) == []
    assert store.session_turn("nobody") == []
    before_turn = MemoryFilter(session_id="s", before_turn=2, statuses=None)
    assert store.count_memories(before_turn) == 3


def test_context_lists_must_match_the_memories(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="2 memories but 1 contexts"):
        store.upsert_memories([make_memory(), make_memory()], unit_vectors(2), [None])
