"""The turn archive in the bench: a store's archive filled with synthetic turns (the pre
hook searches it on every prompt), and what it takes on disk per 1,000 turns."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.bench.corpus import synthetic_memory, synthetic_parts, synthetic_texts
from cortex_tui.engine.local import LocalEngine
from cortex_tui.store.base import Store

Vectors = np.ndarray[Any, np.dtype[np.float32]]
SESSION_TURNS = 20
PARTS_A_MESSAGE = 3
BATCH = 1024


def fill_archive(
    store: Store,
    base_vectors: Vectors,
    turns: int,
    projects: Sequence[str | None],
    now: datetime,
) -> None:
    """`turns` archived turns (a message said, one answered), in sessions of
    `SESSION_TURNS`, each message with part vectors as a turn's sentences have them."""
    rng = random.Random(turns)
    noise = np.random.default_rng(turns)
    for start in range(0, 2 * turns, BATCH):
        count = min(BATCH, 2 * turns - start)
        records = [
            synthetic_memory(
                text,
                rng,
                now,
                projects,
                session_id=f"bench-archive-{position // (2 * SESSION_TURNS)}",
                turn=position // 2 % SESSION_TURNS,
                speaker=("user", "assistant")[position % 2],
            )
            for position, text in enumerate(synthetic_texts(count, seed=turns + start), start)
        ]
        picks = noise.integers(0, len(base_vectors), count)
        vectors = base_vectors[picks] + noise.normal(0, 0.02, (count, base_vectors.shape[1]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        parts = [synthetic_parts(base_vectors, noise, PARTS_A_MESSAGE) for _ in range(count)]
        store.archive.upsert_memories(records, list(vectors.astype(np.float32)), parts=parts)


def archive_size(
    open_in: Callable[[Path], LocalEngine],
    base_vectors: Vectors,
    turns: int,
    projects: Sequence[str | None],
    now: datetime,
) -> dict[str, float]:
    """The archive's disk per 1,000 turns: a store holding only them, compacted as the
    service leaves it once quiet, against the same store empty."""
    if not turns:
        return {"turns": 0}
    sizes: list[int] = []
    for filled in (0, turns):
        with tempfile.TemporaryDirectory(prefix="cortex-bench-archive-") as tmp:
            engine = open_in(Path(tmp))
            try:
                fill_archive(engine.store, base_vectors, filled, projects, now)
                engine.store.compact()
            finally:
                engine.close()
            sizes.append(_disk_bytes(Path(tmp)))
    return {
        "turns": turns,
        "mb_per_1000_turns": round((sizes[1] - sizes[0]) / 1e6 / (turns / 1000), 2),
    }


def _disk_bytes(folder: Path) -> int:
    """What the files take on disk (a store's are sparse: their apparent size is not)."""
    return sum(path.stat().st_blocks * 512 for path in folder.rglob("*") if path.is_file())
