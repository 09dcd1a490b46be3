"""The store's side of part vectors, on every backend: a memory of several sentences is
stored with one vector per sentence, scored by its best one, and copied whole."""

from __future__ import annotations

import numpy as np
import pytest

from cortex_tui.errors import InvalidInputError, StoreError
from cortex_tui.store.base import IndexContext, MemoryFilter, Store

from .helpers import DIM, make_memory, unit_vectors

ALL = MemoryFilter(statuses=None, current_only=False)


def test_a_memory_scores_by_its_best_part(store: Store) -> None:
    assert store.indexes_parts
    long = make_memory("We moved the wiki. Weekends are all about Uber Eats. Fine.")
    short = make_memory("The wiki moved to Notion")
    own, other, *parts = unit_vectors(5, seed=11)
    store.upsert_memories([long, short], [own, other], parts=[parts, []])
    assert store.get_memories([long.id]) == [long]
    query = parts[1]
    named = [long.id, short.id, make_memory("never stored").id]
    # Only the memory with parts is scored, by the part nearest the query.
    assert store.part_cosines(query, named) == pytest.approx({long.id: 1.0}, abs=1e-5)
    expected = max(float(np.dot(part, parts[0])) for part in parts)
    assert store.part_cosines(parts[0], [long.id])[long.id] == pytest.approx(expected, abs=1e-5)
    assert store.part_cosines(query, []) == {}
    stored = store.get_parts(named)
    assert set(stored) == {long.id}
    assert np.allclose(stored[long.id], parts, atol=1e-6)
    # The own vector is untouched by the parts.
    assert store.cosines(own, [long.id]) == pytest.approx({long.id: 1.0}, abs=1e-5)


def test_parts_live_beside_context_and_survive_payload_updates(store: Store) -> None:
    answer = make_memory("Yes. The blue one, I adopted her in May.", session_id="s", turn=1)
    own, context, *parts = unit_vectors(4, seed=12)
    store.upsert_memories(
        [answer], [own], [IndexContext("Which dog?", context, 0.5)], parts=[parts]
    )
    store.update_memories([answer.model_copy(update={"tags": ["dogs"]})])
    assert store.cosines(context, [answer.id], context=True)[answer.id] == pytest.approx(1.0)
    assert store.part_cosines(parts[0], [answer.id])[answer.id] == pytest.approx(1.0, abs=1e-5)


def test_points_carry_parts_back_into_a_store(store: Store) -> None:
    long = make_memory("One. Two. Three.")
    own, *parts = unit_vectors(4, seed=13)
    store.upsert_memories([long], [own], parts=[parts])
    [point] = list(store.points("memories"))
    assert np.allclose(point.parts, parts, atol=1e-6)
    store.delete_memories([long.id])
    assert store.part_cosines(parts[0], [long.id]) == {}
    store.put_points("memories", [point])
    assert store.part_cosines(parts[2], [long.id])[long.id] == pytest.approx(1.0, abs=1e-5)


def test_part_lists_must_match_the_memories_and_the_dimension(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="2 memories but 1 part lists"):
        store.upsert_memories([make_memory(), make_memory()], unit_vectors(2), parts=[[]])
    with pytest.raises(StoreError, match="cannot be stored next to"):
        store.upsert_memories([make_memory()], unit_vectors(1), parts=[[[0.5] * (DIM + 1)]])
