"""Property: whatever sequence of writes, recalls and curation runs, a superseded memory
is never returned by default recall and no read-modify-write brings it back."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW, make_engine

SUBJECTS = ["staging database", "atlas API host", "standup time", "harbor Python version"]
VALUES = ["blue", "red", "09:30", "10:15", "Heroku", "Fly.io", "3.10", "3.12"]

step = st.one_of(
    st.tuples(st.just("state"), st.sampled_from(SUBJECTS), st.sampled_from(VALUES)),
    st.tuples(st.just("change"), st.sampled_from(SUBJECTS), st.sampled_from(VALUES)),
    st.tuples(st.just("recall"), st.sampled_from(SUBJECTS), st.just("")),
    st.tuples(st.just("edit"), st.sampled_from(SUBJECTS), st.sampled_from(VALUES)),
)


def _apply(engine: LocalEngine, op: str, subject: str, value: str, day: int) -> None:
    when = NOW - timedelta(days=30 - day)
    if op == "state":
        engine.remember(MemoryDraft(content=f"The {subject} is {value}.", created_at=when))
    elif op == "change":
        engine.remember(MemoryDraft(content=f"The {subject} is now {value}.", created_at=when))
    elif op == "recall":
        engine.recall(RecallRequest(query=f"what is the {subject}", update_access=True))
    else:
        hits = engine.recall(RecallRequest(query=subject, update_access=False, limit=1))
        if hits.results:
            engine.update(hits.results[0].memory.id, content=f"The {subject} is {value}!")


def _check(engine: LocalEngine) -> None:
    everything = list(engine.store.iter_memories(MemoryFilter(current_only=False, statuses=None)))
    retired = {m.id for m in everything if m.valid_to is not None}
    for m in everything:
        if m.superseded_by_id:
            assert m.valid_to is not None, "a superseded memory was revived"
    for subject in SUBJECTS:
        found = engine.recall(RecallRequest(query=subject, limit=50, update_access=True))
        assert not {r.memory.id for r in found.results} & retired
    after = {
        m.id
        for m in engine.store.iter_memories(MemoryFilter(current_only=False, statuses=None))
        if m.valid_to is not None
    }
    assert retired <= after


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(step, min_size=2, max_size=8))
def test_superseded_memories_stay_retired(
    onnx_embedder: Embedder, steps: list[tuple[str, str, str]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(Path(tmp), onnx_embedder)
        try:
            for day, (op, subject, value) in enumerate(steps):
                _apply(engine, op, subject, value, day)
                _check(engine)
        finally:
            engine.close()
