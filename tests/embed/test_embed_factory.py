"""`make_embedder` turns configuration into the right backend, configured as asked."""

from __future__ import annotations

from cortex_tui.config import EmbedderConfig
from cortex_tui.embed.factory import make_embedder
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.embed.ollama import OllamaEmbedder
from cortex_tui.embed.onnx import OnnxMiniLMEmbedder

from .fake_ollama import FAKE_DIMENSION, FakeOllama


def test_onnx_is_the_default() -> None:
    embedder = make_embedder(EmbedderConfig())
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert embedder.name == "onnx:all-MiniLM-L6-v2-int8"


def test_hashing_uses_the_configured_dimension() -> None:
    embedder = make_embedder(EmbedderConfig(kind="hashing", hashing_dimension=128))
    assert isinstance(embedder, HashingEmbedder)
    assert embedder.name == "hashing:v1:128"


def test_ollama_uses_the_configured_server_and_model(fake_ollama: FakeOllama) -> None:
    config = EmbedderConfig(kind="ollama", ollama_url=fake_ollama.url, batch_size=2)
    embedder = make_embedder(config)
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.name == "ollama:nomic-embed-text"
    assert embedder.embed(["a", "b", "c"]).shape == (3, FAKE_DIMENSION)
    assert [len(request["input"]) for request in fake_ollama.requests] == [2, 1]
