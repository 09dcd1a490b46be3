"""What only the embedded store does: its folder, meta.json and the one-owner lock; plus
the factory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import cortex_tui
from cortex_tui.config import StoreConfig
from cortex_tui.errors import EmbedderMismatchError, StoreError, StoreLockedError
from cortex_tui.store.base import MemoryFilter
from cortex_tui.store.edge import EdgeStore
from cortex_tui.store.factory import open_store

from .helpers import DIM, EMBEDDER, make_memory, unit_vectors

_OWNER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from cortex_tui.errors import StoreLockedError
    from cortex_tui.store.edge import EdgeStore

    try:
        store = EdgeStore.open(Path(sys.argv[1]), "test-embedder", 8)
    except StoreLockedError as exc:
        print("locked:", exc, flush=True)
        sys.exit(3)
    print("ready", flush=True)
    sys.stdin.readline()
    store.close()
    """
)


def _python(store_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(cortex_tui.__file__).parents[1])}
    return subprocess.Popen(
        [sys.executable, "-c", _OWNER, str(store_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_layout_and_meta_file(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path / "store", EMBEDDER, DIM)
    store.close()
    names = {p.name for p in (tmp_path / "store").iterdir()}
    expected = {".lock", "meta.json", "integrity.json", "memories", "entities", "relations"}
    assert names == expected | {"journal", "archive"}
    meta = json.loads((tmp_path / "store" / "meta.json").read_text())
    assert (meta["embedder"], meta["dimension"], meta["schema_version"]) == (EMBEDDER, DIM, 1)


def test_data_without_meta_is_refused(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    store.upsert_memories([make_memory()], unit_vectors(1))
    store.close()
    (tmp_path / "meta.json").unlink()
    with pytest.raises(StoreError, match=r"no meta\.json"):
        EdgeStore.open(tmp_path, EMBEDDER, DIM)
    assert not (tmp_path / "meta.json").exists()


def test_second_open_in_process_is_refused(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    with pytest.raises(
        StoreLockedError, match=rf"already open in this process \(pid {os.getpid()}\)"
    ):
        EdgeStore.open(tmp_path, EMBEDDER, DIM)
    store.close()
    store.close()  # idempotent
    EdgeStore.open(tmp_path, EMBEDDER, DIM).close()


def test_another_process_owning_the_store(tmp_path: Path) -> None:
    owner = _python(tmp_path)
    assert owner.stdout is not None and owner.stdin is not None
    assert owner.stdout.readline().strip() == "ready"
    with pytest.raises(StoreLockedError) as err:
        EdgeStore.open(tmp_path, EMBEDDER, DIM)
    assert f"pid {owner.pid}" in str(err.value)
    assert "cortex-tui serve --stop" in str(err.value)
    owner.stdin.write("\n")
    owner.stdin.flush()
    assert owner.wait(timeout=30) == 0
    EdgeStore.open(tmp_path, EMBEDDER, DIM).close()


def test_another_process_is_refused_while_we_own_it(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    other = _python(tmp_path)
    out, _ = other.communicate(timeout=30)
    assert other.returncode == 3
    assert f"pid {os.getpid()}" in out
    store.close()


def test_a_refused_open_releases_the_lock(tmp_path: Path) -> None:
    EdgeStore.open(tmp_path, EMBEDDER, DIM).close()
    with pytest.raises(EmbedderMismatchError):
        EdgeStore.open(tmp_path, "another", DIM)
    EdgeStore.open(tmp_path, EMBEDDER, DIM).close()


def test_optimize_keeps_results(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    memories = [make_memory(f"note {i}", project="p" if i % 2 else None) for i in range(50)]
    vectors = unit_vectors(50)
    store.upsert_memories(memories, vectors)
    flt = MemoryFilter(project="p", project_only=True)
    before = store.search_dense(vectors[1], flt, 5)
    store.optimize()
    assert store.search_dense(vectors[1], flt, 5) == before
    store.close()


def test_compaction_folds_what_was_written_once_enough_was(tmp_path: Path) -> None:
    """`compact_after` memories' vectors (here 32: Edge counts whole kilobytes) make a
    compaction due; each one folds only what came since, and every answer stays."""
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM, compact_after=32)
    try:
        first = [make_memory(f"note {i}", project="p" if i % 2 else None) for i in range(20)]
        store.upsert_memories(first, unit_vectors(20, seed=1))
        assert not store.compact()  # 20 of 32: not yet
        more = [make_memory(f"entry {i}", project="p") for i in range(100)]
        vectors = unit_vectors(100, seed=2)
        store.upsert_memories(more, vectors)
        flt = MemoryFilter(project="p", project_only=True)
        before = store.search_dense(vectors[3], flt, 5)
        assert store.compact()
        assert not store.compact()  # nothing new since
        assert store.search_dense(vectors[3], flt, 5) == before
    finally:
        store.close()
    reopened = EdgeStore.open(tmp_path, EMBEDDER, DIM, compact_after=32)
    try:
        assert reopened.count_memories(MemoryFilter(statuses=None, current_only=False)) == 120
        assert reopened.search_dense(vectors[3], flt, 5) == before
    finally:
        reopened.close()


def _made_before_compaction(made_now: Any) -> Any:
    """Shard layouts as stores were made before compaction: vectors read into RAM,
    Edge's default HNSW graph and merge policy, and no part vectors (which came later)."""
    import qdrant_edge as qe

    def layout(coll: Any, dimension: int, **_layout: Any) -> Any:
        now = made_now(coll, dimension)
        vectors = {
            name: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)
            for name in now.vectors
            if name != "parts"
        }
        return qe.EdgeConfig(vectors=vectors, sparse_vectors=now.sparse_vectors)

    return layout


def test_an_older_layout_is_brought_up_to_date_and_compacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cortex_tui.store import edge

    monkeypatch.setattr(edge, "shard_config", _made_before_compaction(edge.shard_config))
    old = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    memories = [make_memory(f"fact {i}") for i in range(100)]
    vectors = unit_vectors(100, seed=3)
    old.upsert_memories(memories, vectors)
    before = old.search_dense(vectors[7], MemoryFilter(), 10)
    old.close()
    monkeypatch.undo()
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM, compact_after=32)
    try:
        assert store.compact()
        assert store.search_dense(vectors[7], MemoryFilter(), 10) == before
    finally:
        store.close()


def test_a_layout_that_cannot_be_brought_up_to_date_is_not_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memories shard with a vector this version does not know (a newer version's,
    say) is opened as it is; compacting it in its own layout is left to `optimize`."""
    import qdrant_edge as qe

    from cortex_tui.store import edge

    def with_another_vector(coll: Any, dimension: int, **layout: Any) -> Any:
        made_now = made(coll, dimension, **layout)
        if coll is not edge.Collection.MEMORIES:
            return made_now
        extra = qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)
        return qe.EdgeConfig(
            vectors={**made_now.vectors, "another": extra},
            sparse_vectors=made_now.sparse_vectors,
        )

    made = edge.shard_config
    monkeypatch.setattr(edge, "shard_config", with_another_vector)
    EdgeStore.open(tmp_path, EMBEDDER, DIM).close()
    monkeypatch.undo()
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM, compact_after=32)
    try:
        memories = [make_memory(f"fact {i}") for i in range(100)]
        vectors = unit_vectors(100, seed=4)
        store.upsert_memories(memories, vectors)
        assert not store.compact()
        assert store.search_dense(vectors[0], MemoryFilter(), 1)[0].memory.id == memories[0].id
    finally:
        store.close()


def test_factory_picks_the_backend(tmp_path: Path) -> None:
    edge = open_store(StoreConfig(), tmp_path, EMBEDDER, DIM)
    assert isinstance(edge, EdgeStore) and edge.location == str(tmp_path)
    edge.close()
    memory = open_store(StoreConfig(qdrant_url=":memory:"), tmp_path, EMBEDDER, DIM)
    assert type(memory).__name__ == "QdrantServerStore" and memory.location == ":memory:"
    memory.close()


def test_factory_import_does_not_load_qdrant_client() -> None:
    code = "import sys, cortex_tui.store.factory; print('qdrant_client' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(Path(cortex_tui.__file__).parents[1])}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_store_made_before_neighbour_context_keeps_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its memories shard has no context vector and cannot gain one: context vectors are
    left out (the previous turn's words still count), and `reembed` rebuilds it."""
    import qdrant_edge as qe

    from cortex_tui.store import edge
    from cortex_tui.store.base import IndexContext

    def without_context(coll: edge.Collection, dimension: int, **layout: Any) -> qe.EdgeConfig:
        if coll is not edge.Collection.MEMORIES:
            return made_now(coll, dimension, **layout)
        return qe.EdgeConfig(
            vectors={edge.DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)},
            sparse_vectors={edge.LEXICAL: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )

    made_now = edge.shard_config
    monkeypatch.setattr(edge, "shard_config", without_context)
    EdgeStore.open(tmp_path / "store", EMBEDDER, DIM).close()
    monkeypatch.undo()
    store = EdgeStore.open(tmp_path / "store", EMBEDDER, DIM)
    try:
        assert not store.indexes_context
        answer = make_memory("Yes, the blue one", session_id="s", turn=1)
        own, context = unit_vectors(2)
        store.upsert_memories([answer], [own], [IndexContext("Which kayak?", context, 0.5)])
        assert store.search_ids(context, MemoryFilter(), 5, context=True) == []
        assert store.get_vectors([answer.id], context=True) == {}
        assert [h.memory.id for h in store.search_lexical("kayak", MemoryFilter(), 5)] == [
            answer.id
        ]
    finally:
        store.close()


def test_a_store_encoded_by_an_older_tokenizer_is_re_encoded_on_open(tmp_path: Path) -> None:
    """Stored lexical vectors and query terms must come from the same tokenizer: a store
    whose meta records an older one (or none) re-encodes every memory when it opens."""
    from cortex_tui.store.edge import read_meta, write_meta
    from cortex_tui.store.lexical import LEXICAL_VERSION, encode_document
    from cortex_tui.store.points import Collection

    path = tmp_path / "store"
    store = EdgeStore.open(path, EMBEDDER, DIM)
    memory = make_memory("The queries of the adoption service", tags=["kennel"])
    store.upsert_memories([memory], unit_vectors(1))
    # As an older version left it: other terms in the vector, no version in meta.json.
    store._set_sparse(Collection.MEMORIES, [(memory.id, encode_document("unrelated words"))])
    store.close()
    meta = read_meta(path)
    assert meta is not None and meta.lexical_version == LEXICAL_VERSION
    write_meta(path, meta.model_copy(update={"lexical_version": 1}))
    reopened = EdgeStore.open(path, EMBEDDER, DIM)
    try:
        found = reopened.search_lexical("adopt query kennel", MemoryFilter(), 5)
        assert [h.memory.id for h in found] == [memory.id]
        assert reopened.search_lexical("unrelated", MemoryFilter(), 5) == []
        assert reopened.meta.lexical_version == LEXICAL_VERSION
    finally:
        reopened.close()
    again = read_meta(path)
    assert again is not None and again.lexical_version == LEXICAL_VERSION


_DEFERRED_THEN_KILLED = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from cortex_tui.store.edge import EdgeStore
    sys.path.insert(0, sys.argv[2])
    from tests.store.helpers import make_memory, unit_vectors

    store = EdgeStore.open(Path(sys.argv[1]), "test-embedder", 8)
    memories = [make_memory(f"batched note {i}") for i in range(20)]
    vectors = unit_vectors(20)
    with store.deferred_commits():
        for memory, vector in zip(memories, vectors):
            store.upsert_memories([memory], [vector])
        os._exit(0)  # dies before the batch is flushed
    """
)


def test_deferred_writes_are_durable_together_on_the_way_out(tmp_path: Path) -> None:
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    memories = [make_memory(f"note {i}") for i in range(5)]
    with store.deferred_commits():
        for memory, vector in zip(memories, unit_vectors(5), strict=True):
            store.upsert_memories([memory], [vector])
        with store.deferred_commits():  # nested: joins the outer batch
            store.update_memories([memories[0].model_copy(update={"tags": ["kept"]})])
        assert store.count_memories(MemoryFilter()) == 5  # readable before the flush
    store.close()
    reopened = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    assert reopened.count_memories(MemoryFilter()) == 5
    assert reopened.get_memories([memories[0].id])[0].tags == ["kept"]
    reopened.close()


def test_a_process_dying_inside_a_deferred_batch_leaves_a_store_that_opens(
    tmp_path: Path,
) -> None:
    """The batch's writes may or may not have reached the disk; the store opens either way
    (its integrity record knew a write of up to 20 points was under way)."""
    env = {**os.environ, "PYTHONPATH": str(Path(cortex_tui.__file__).parents[1])}
    root = str(Path(__file__).parents[2])
    subprocess.run(
        [sys.executable, "-c", _DEFERRED_THEN_KILLED, str(tmp_path), root],
        env=env,
        check=True,
        timeout=120,
    )
    store = EdgeStore.open(tmp_path, EMBEDDER, DIM)
    assert 0 <= store.count_memories(MemoryFilter()) <= 20
    store.close()


def test_a_store_made_before_part_vectors_keeps_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its memories shard has dense and context vectors and no place for parts: they are
    left out and nothing scores by them, while context still works."""
    from cortex_tui.store import edge
    from cortex_tui.store.base import IndexContext

    made_now = edge.shard_config
    monkeypatch.setattr(
        edge,
        "shard_config",
        lambda coll, dimension, **layout: made_now(
            coll, dimension, **{**layout, "vectors": ("dense", "context")}
        ),
    )
    EdgeStore.open(tmp_path / "store", EMBEDDER, DIM).close()
    monkeypatch.undo()
    store = EdgeStore.open(tmp_path / "store", EMBEDDER, DIM)
    try:
        assert store.indexes_context and not store.indexes_parts
        answer = make_memory("Yes. The blue one.", session_id="s", turn=1)
        own, context, *parts = unit_vectors(4)
        store.upsert_memories(
            [answer], [own], [IndexContext("Which kayak?", context, 0.5)], parts=[parts]
        )
        assert store.part_cosines(parts[0], [answer.id]) == {}
        assert store.get_parts([answer.id]) == {}
        [point] = list(store.points("memories"))
        assert point.parts == []
        assert store.cosines(context, [answer.id], context=True)[answer.id] == pytest.approx(1.0)
    finally:
        store.close()
