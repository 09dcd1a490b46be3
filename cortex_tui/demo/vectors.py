"""The demo data set's vectors, precomputed, so `cortex-tui --demo` does not embed it.

`vectors.npy` holds float32 rows: the demo memories' contents, then the entities' names,
then the memories' part texts (`write/parts.py`, default settings), in `build_demo()`
order, as the default embedder embeds them (one `embed` call for each kind, as
`LocalEngine.insert` and `insert_graph` make them). `vectors.json` records the
embedder that made them (`name:dimension`, as the store's meta does) and a SHA-256 of the
texts. `load_demo` uses them only when both match the engine's embedder and the current
data; anything else (another configured embedder, an edited data.json) is embedded as
before, so the demo is always right and only its speed depends on these files.

After editing data.json or changing the default model, regenerate them (the tests fail
until then):

    python -m cortex_tui.demo.vectors            # rewrite vectors.npy and vectors.json
    python -m cortex_tui.demo.vectors --check    # exit 1 when they are stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from cortex_tui.config import EmbedderConfig, PartsConfig
from cortex_tui.embed.base import Embedder, Matrix
from cortex_tui.embed.factory import make_embedder
from cortex_tui.models import Entity, Memory
from cortex_tui.write.parts import part_texts

VECTORS_NAME = "vectors.npy"
MANIFEST_NAME = "vectors.json"
MIN_COSINE = 0.999
"""Shipped rows must stay this close to a fresh embedding: another CPU's kernels move a
vector by far less, a different model or text by far more."""


@dataclass(frozen=True)
class DemoTexts:
    """What the embedder is given for the demo: memory contents, entity names, and each
    memory's part texts (as the parts settings split it)."""

    memories: list[str]
    entities: list[str]
    parts: list[list[str]]

    @classmethod
    def of(
        cls, memories: Sequence[Memory], entities: Sequence[Entity], parts: PartsConfig
    ) -> DemoTexts:
        split = [part_texts(m.content, parts) for m in memories]
        return cls([m.content for m in memories], [e.name for e in entities], split)

    def sha256(self) -> str:
        encoded = json.dumps([self.memories, self.entities, self.parts], ensure_ascii=False)
        return hashlib.sha256(encoded.encode("utf-8")).hexdigest()

    @property
    def flat_parts(self) -> list[str]:
        return [text for pieces in self.parts for text in pieces]


@dataclass(frozen=True)
class DemoVectors:
    memories: Matrix
    entities: Matrix
    parts: Matrix
    """Every memory's part rows, in memory order (`split_parts` gives them per memory)."""

    def split_parts(self, texts: DemoTexts) -> list[Matrix]:
        found, start = [], 0
        for pieces in texts.parts:
            found.append(self.parts[start : start + len(pieces)])
            start += len(pieces)
        return found


def embedder_id(embedder: Embedder) -> str:
    return f"{embedder.name}:{embedder.dimension}"


def shipped_vectors(embedder: Embedder, texts: DemoTexts) -> DemoVectors | None:
    """The shipped vectors when they are `embedder`'s embedding of exactly `texts`."""
    folder = resources.files("cortex_tui.demo")
    try:
        manifest = json.loads(folder.joinpath(MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.get("embedder") != embedder_id(embedder):
        return None
    if manifest.get("texts_sha256") != texts.sha256():
        return None
    try:
        with folder.joinpath(VECTORS_NAME).open("rb") as file:
            rows = np.load(file, allow_pickle=False)
    except (OSError, ValueError):
        return None
    count, named = len(texts.memories), len(texts.memories) + len(texts.entities)
    expected = (named + len(texts.flat_parts), embedder.dimension)
    if rows.dtype != np.float32 or rows.shape != expected:
        return None
    return DemoVectors(rows[:count], rows[count:named], rows[named:])


def embed_texts(embedder: Embedder, texts: DemoTexts) -> DemoVectors:
    parts = texts.flat_parts
    return DemoVectors(
        embedder.embed(texts.memories),
        embedder.embed(texts.entities),
        embedder.embed(parts) if parts else np.zeros((0, embedder.dimension), np.float32),
    )


def write_vectors(embedder: Embedder, texts: DemoTexts, folder: Path) -> DemoVectors:
    vectors = embed_texts(embedder, texts)
    rows = np.concatenate([vectors.memories, vectors.entities, vectors.parts]).astype(np.float32)
    np.save(folder / VECTORS_NAME, rows, allow_pickle=False)
    manifest = {
        "embedder": embedder_id(embedder),
        "texts_sha256": texts.sha256(),
        "memories": len(texts.memories),
        "entities": len(texts.entities),
        "parts": len(texts.flat_parts),
        "regenerate": "python -m cortex_tui.demo.vectors",
    }
    (folder / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return vectors


def staleness(embedder: Embedder, texts: DemoTexts) -> str | None:
    """Why the shipped vectors are not `embedder`'s embedding of `texts`, or None."""
    shipped = shipped_vectors(embedder, texts)
    if shipped is None:
        return (
            f"the shipped demo vectors are not {embedder_id(embedder)}'s for the current "
            "data (missing, another embedder, or data.json changed)"
        )
    fresh = embed_texts(embedder, texts)
    worst = min(
        _min_cosine(shipped.memories, fresh.memories),
        _min_cosine(shipped.entities, fresh.entities),
        _min_cosine(shipped.parts, fresh.parts),
    )
    if worst < MIN_COSINE:
        return f"a shipped demo vector is at cosine {worst:.4f} of a fresh one (< {MIN_COSINE})"
    return None


def _min_cosine(a: Matrix, b: Matrix) -> float:
    if not len(a):
        return 1.0
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return float(((a * b).sum(axis=1) / np.maximum(norms, 1e-12)).min())


def default_embedder() -> Embedder:
    """The embedder the shipped vectors are for: the default (ONNX) one, whatever the
    environment configures (made in, or read from, the configured models folder)."""
    from cortex_tui.config import load_settings

    return make_embedder(EmbedderConfig(), load_settings().models_path)


def main(args: list[str]) -> int:
    from cortex_tui.demo.loader import build_demo

    parser = argparse.ArgumentParser(
        prog="python -m cortex_tui.demo.vectors",
        description="Regenerate (or --check) the demo data set's precomputed vectors.",
    )
    parser.add_argument("--check", action="store_true", help="only check; exit 1 when stale")
    options = parser.parse_args(args)
    memories, entities, _ = build_demo()
    texts = DemoTexts.of(memories, entities, PartsConfig())
    embedder = default_embedder()
    if options.check:
        problem = staleness(embedder, texts)
        print(problem or f"demo vectors are up to date ({embedder_id(embedder)})")
        return 1 if problem else 0
    folder = Path(__file__).parent
    write_vectors(embedder, texts, folder)
    print(
        f"wrote {len(texts.memories)} memory, {len(texts.entities)} entity and "
        f"{len(texts.flat_parts)} part vectors "
        f"({embedder_id(embedder)}) to {folder / VECTORS_NAME}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
