"""The demo's precomputed vectors: current, used only when they fit, checked on input."""

from __future__ import annotations

import numpy as np
import pytest

from cortex_tui.config import PartsConfig
from cortex_tui.demo.loader import build_demo, load_demo
from cortex_tui.demo.vectors import DemoTexts, shipped_vectors, staleness
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.recall.request import RecallRequest


@pytest.fixture(scope="module")
def texts() -> DemoTexts:
    memories, entities, _ = build_demo()
    return DemoTexts.of(memories, entities, PartsConfig())


def test_shipped_vectors_are_the_default_models_embedding_of_the_current_data(
    onnx_embedder: Embedder, texts: DemoTexts
) -> None:
    """Fails after an edit of data.json or a model change until
    `python -m cortex_tui.demo.vectors` is run."""
    assert staleness(onnx_embedder, texts) is None


def test_shipped_vectors_are_refused_for_another_embedder_or_other_texts(
    onnx_embedder: Embedder, hashing_embedder: Embedder, texts: DemoTexts
) -> None:
    assert shipped_vectors(onnx_embedder, texts) is not None
    assert shipped_vectors(hashing_embedder, texts) is None
    edited = DemoTexts(
        [texts.memories[0] + " (edited)", *texts.memories[1:]], texts.entities, texts.parts
    )
    assert shipped_vectors(onnx_embedder, edited) is None
    assert texts.flat_parts, "the demo has memories of several sentences"
    split_otherwise = DemoTexts.of(*build_demo()[:2], PartsConfig(min_chars=0))
    assert shipped_vectors(onnx_embedder, split_otherwise) is None


def test_the_demo_loaded_from_shipped_vectors_recalls_by_meaning(
    onnx_engine: LocalEngine, texts: DemoTexts
) -> None:
    load_demo(onnx_engine)
    memories, _, _ = build_demo()
    split = [m.id for m, pieces in zip(memories, texts.parts, strict=True) if pieces]
    assert sorted(onnx_engine.store.get_parts([m.id for m in memories])) == sorted(split)
    response = onnx_engine.recall(RecallRequest(query="which database do we run in production"))
    assert response.results
    assert "postgres" in response.results[0].memory.content.lower()


def test_vectors_of_the_wrong_shape_are_refused_and_nothing_is_stored(
    engine: LocalEngine,
) -> None:
    memories, _, _ = build_demo()
    rows = np.zeros((len(memories) - 1, engine.embedder.dimension), dtype=np.float32)
    with pytest.raises(InvalidInputError, match="expected vectors of shape"):
        engine.insert(memories, vectors=rows)
    bad = np.full((len(memories), engine.embedder.dimension), np.nan, dtype=np.float32)
    with pytest.raises(InvalidInputError, match="NaN"):
        engine.insert(memories, vectors=bad)
    assert engine.overview.stats().total == 0
