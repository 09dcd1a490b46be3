"""Query vectors remembered per text, for the process that serves many recalls.

Agents send the same prompt again (a retry, a recall then a search, one prompt read
by a hook and an MCP tool), so the service keeps the last few thousand query vectors
and answers a repeat without running the model. One-shot processes gain nothing from
it, and `cortex-tui bench` measures the model itself, so only the service wraps its
embedder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from cortex_tui.embed.base import Embedder, EmbedderInFront, Matrix
from cortex_tui.embed.factory import Loadable

CAPACITY = 2048
"""Query vectors kept: 3 MB at 384 dimensions, 6 MB at 768."""


class QueryCache(EmbedderInFront):
    """An `Embedder` that embeds each distinct query once (least recently used first out);
    documents pass straight through."""

    def __init__(self, inner: Embedder, capacity: int = CAPACITY) -> None:
        super().__init__(inner)
        self._capacity = capacity
        self._vectors: OrderedDict[str, Matrix] = OrderedDict()
        self._lock = threading.Lock()

    def load(self) -> None:
        if isinstance(self._inner, Loadable):
            self._inner.load()

    def embed_query(self, text: str) -> Matrix:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                return vector.copy()  # callers own what they get
        vector = self._inner.embed_query(text)
        with self._lock:
            self._vectors[text] = vector.copy()
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)
        return vector
