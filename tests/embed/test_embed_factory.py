"""`make_embedder` turns configuration into the right backend, configured as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui.config import EmbedderConfig
from cortex_tui.embed.catalogue import PACKAGED_EMBEDDER, PACKAGED_MODEL
from cortex_tui.embed.factory import make_embedder
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.embed.ollama import OllamaEmbedder
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.errors import EmbedderError

from .fake_ollama import FAKE_DIMENSION, FakeOllama


def test_onnx_is_the_default(models_dir: Path) -> None:
    embedder = make_embedder(EmbedderConfig(), models_dir)
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.name.startswith("onnx:all-MiniLM-L6-v2@int8:")


def test_the_default_model_is_made_on_first_use(tmp_path: Path) -> None:
    """From the packaged weights, with no network: the folder holds it afterwards and the
    next embedder reads it from there."""
    first = make_embedder(EmbedderConfig(), tmp_path / "models", lazy=True)
    assert (tmp_path / "models" / "all-MiniLM-L6-v2" / "manifest.json").is_file()
    again = make_embedder(EmbedderConfig(), tmp_path / "models")
    assert again.name == first.name


def test_the_packaged_file_stays_selectable(tmp_path: Path) -> None:
    embedder = make_embedder(EmbedderConfig(model=PACKAGED_MODEL), tmp_path)
    assert embedder.name == PACKAGED_EMBEDDER
    assert not (tmp_path / PACKAGED_MODEL).exists()


def test_an_unknown_model_names_the_way_to_add_it(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match=r"cortex-tui model add PATH --name bge-small"):
        make_embedder(EmbedderConfig(model="bge-small"), tmp_path)


def test_hashing_uses_the_configured_dimension() -> None:
    embedder = make_embedder(EmbedderConfig(kind="hashing", hashing_dimension=128), Path())
    assert isinstance(embedder, HashingEmbedder)
    assert embedder.name == "hashing:v1:128"


def test_ollama_uses_the_configured_server_and_model(fake_ollama: FakeOllama) -> None:
    config = EmbedderConfig(kind="ollama", ollama_url=fake_ollama.url, batch_size=2)
    embedder = make_embedder(config, Path())
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.name == "ollama:nomic-embed-text"
    assert embedder.embed(["a", "b", "c"]).shape == (3, FAKE_DIMENSION)
    assert [len(request["input"]) for request in fake_ollama.requests] == [2, 1]
