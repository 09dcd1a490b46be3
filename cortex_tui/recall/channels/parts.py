"""The sentence reading of the dense channel: a memory of several sentences also has part
vectors (`write/parts.py`), read as `part_weight` × its best sentence's cosine when that
beats the memory's own and its context's. Parts are read for the candidates alone, never
searched: a fact said in passing lifts a memory another channel found."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cortex_tui.config import RecallConfig
from cortex_tui.embed.base import Matrix
from cortex_tui.models import Memory
from cortex_tui.recall.candidates import Pool
from cortex_tui.recall.channels.base import ChannelQuery
from cortex_tui.recall.scoring import Evidence
from cortex_tui.store.base import Store


def reads_parts(config: RecallConfig, store: Store) -> bool:
    return config.part_weight > 0 and store.indexes_parts


def fill_parts(query: ChannelQuery, pool: Pool) -> None:
    """Best-sentence cosines of every candidate not yet read."""
    unread = [c.memory.id for c in pool.candidates.values() if c.part_cosine is None]
    for memory_id, cosine in query.store.part_cosines(query.vector, unread).items():
        pool.candidates[memory_id].part_cosine = cosine


def name_sentences(
    store: Store,
    part_texts: Callable[[str], list[str]],
    shown: Sequence[tuple[Memory, Evidence]],
    vector: Matrix,
) -> None:
    """The sentence each shown result was matched by, where the channel read one."""
    by_part = {memory.id: (memory, e) for memory, e in shown if e.part_read is not None}
    if not by_part:
        return
    query = np.asarray(vector, dtype=np.float32)
    for memory_id, parts in store.get_parts(list(by_part)).items():
        memory, evidence = by_part[memory_id]
        texts = part_texts(memory.content)
        if len(texts) == len(parts):  # else the memory was split by other settings
            best = int(np.argmax(np.asarray(parts, dtype=np.float32) @ query))
            evidence.matched_sentence = texts[best]
