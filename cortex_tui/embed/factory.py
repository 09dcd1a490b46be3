"""Build the configured embedder, importing only its backend.

Each backend pulls a heavy library (onnxruntime, httpx), so picking one must not load the
others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, assert_never, runtime_checkable

from cortex_tui.config import EmbedderConfig
from cortex_tui.embed.base import Embedder


@runtime_checkable
class Loadable(Protocol):
    """An embedder whose model can be loaded ahead of its first embed (see `lazy`)."""

    def load(self) -> None: ...


def make_embedder(config: EmbedderConfig, models_dir: Path, *, lazy: bool = False) -> Embedder:
    """The embedder `config.kind` names; the ONNX one finds `config.model` in
    `models_dir` (making the default model on first use) and loads and verifies it here,
    or with `lazy=True` on its first embed (or its `load()`, see `Loadable`)."""
    match config.kind:
        case "onnx":
            from cortex_tui.embed.catalogue import resolve
            from cortex_tui.embed.onnx import OnnxEmbedder

            model = resolve(config.model, models_dir)
            return OnnxEmbedder(model, batch_size=config.batch_size, lazy=lazy)
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
