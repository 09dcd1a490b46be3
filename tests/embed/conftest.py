"""Shared fixtures: one ONNX model per session, and a fake Ollama on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cortex_tui.embed.onnx import OnnxMiniLMEmbedder

from .fake_ollama import FakeOllama, serve_fake_ollama


@pytest.fixture(scope="session")
def onnx_embedder() -> OnnxMiniLMEmbedder:
    """Loading the model takes most of a second: do it once for the whole run."""
    return OnnxMiniLMEmbedder()


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with serve_fake_ollama() as state:
        yield state
