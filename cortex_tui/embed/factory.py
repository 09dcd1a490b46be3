"""Build the configured embedder, importing only its backend.

Each backend pulls a heavy library (onnxruntime, httpx), so picking one must not load the
others.
"""

from __future__ import annotations

from typing import assert_never

from cortex_tui.config import EmbedderConfig
from cortex_tui.embed.base import Embedder


def make_embedder(config: EmbedderConfig) -> Embedder:
    """The embedder `config.kind` names; the ONNX one loads and verifies its model here."""
    match config.kind:
        case "onnx":
            from cortex_tui.embed.onnx import OnnxMiniLMEmbedder

            return OnnxMiniLMEmbedder(batch_size=config.batch_size)
        case "ollama":
            from cortex_tui.embed.ollama import OllamaEmbedder

            return OllamaEmbedder(
                config.ollama_url,
                config.ollama_model,
                batch_size=config.batch_size,
                timeout=config.ollama_timeout,
                retries=config.ollama_retries,
            )
        case "hashing":
            from cortex_tui.embed.hashing import HashingEmbedder

            return HashingEmbedder(config.hashing_dimension)
        case _:
            assert_never(config.kind)
