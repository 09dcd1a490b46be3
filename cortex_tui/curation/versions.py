"""A memory's version chain: every version an update left behind, in order."""

from __future__ import annotations

from cortex_tui.models import Memory
from cortex_tui.store.base import Store


def version_chain(store: Store, memory: Memory) -> list[Memory]:
    """The version chain containing `memory`, oldest first, walked both ways."""
    chain = [memory]
    seen = {memory.id}
    while chain[0].supersedes_id and chain[0].supersedes_id not in seen:
        older = store.get_memories([chain[0].supersedes_id])
        if not older:
            break
        chain.insert(0, older[0])
        seen.add(older[0].id)
    while chain[-1].superseded_by_id and chain[-1].superseded_by_id not in seen:
        newer = store.get_memories([chain[-1].superseded_by_id])
        if not newer:
            break
        chain.append(newer[0])
        seen.add(newer[0].id)
    return chain
