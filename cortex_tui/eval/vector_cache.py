"""Memory vectors kept between eval runs, so a second run of a big benchmark does not
embed it again (their part vectors too: they are embedded through the same embedder).

LongMemEval's 94 development haystacks are 44,000 distinct turns, about five minutes of
embedding on two cores; a ranking change is measured in seconds once their vectors are
kept. A vector is keyed by the embedder's name (its model and vector space) and the
text's SHA-256, so a changed model or text is embedded afresh and never read stale. The
cache is one SQLite file under the home's `cache/`: each batch is one transaction, so a
run stopped halfway leaves whole rows or none. Query vectors are not kept (a run embeds
each question once and they are few).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cortex_tui.embed.base import Embedder, EmbedderInFront, Matrix

CACHE_FILE = "eval-vectors.sqlite"
_LOOKUP_BATCH = 500  # below SQLite's limit on bound parameters


class CachedEmbedder(EmbedderInFront):
    def __init__(self, inner: Embedder, folder: Path) -> None:
        super().__init__(inner)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._db = sqlite3.connect(folder / CACHE_FILE)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"
        )
        self._db.commit()

    def embed(self, texts: Sequence[str]) -> Matrix:
        keys = [self._key(text) for text in texts]
        found = self._lookup(set(keys))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            first = dict(zip(keys, texts, strict=True))
            vectors = self._inner.embed([first[key] for key in missing])
            rows = [
                (key, np.asarray(vector, dtype=np.float32).tobytes())
                for key, vector in zip(missing, vectors, strict=True)
            ]
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            found.update(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
        if not keys:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[key] for key in keys])

    def close(self) -> None:
        self._db.close()

    def _key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self.name}\0{text}".encode()).digest()

    def _lookup(self, keys: set[bytes]) -> dict[bytes, Matrix]:
        wanted = list(keys)
        found: dict[bytes, Matrix] = {}
        for start in range(0, len(wanted), _LOOKUP_BATCH):
            batch = wanted[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(batch))
            for key, blob in self._db.execute(
                f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch
            ):
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.dimension,):
                    found[key] = vector
        return found
