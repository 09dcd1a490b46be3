"""`model add`'s conversion: a sentence-transformers folder becomes an ONNX model whose
vectors match an independent numpy forward pass, with a manifest that loads it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cortex_tui.embed.catalogue import install, model_of, read_manifest, resolve
from cortex_tui.embed.convert.build import build_folder
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.errors import EmbedderError, InvalidInputError

from .tiny_models import forward, write_tiny_model

TEXTS = [
    "the deploy script needs the staging token",
    "use pnpm not npm",
    "caroline went to a support group and said it was powerful on friday",
    "zebra",  # unknown to the vocabulary
]


def _added(
    tmp_path: Path, folder: Path, precision: str = "fp32", name: str | None = None
) -> OnnxEmbedder:
    manifest = install(tmp_path / "models", build_folder(folder, name, precision))  # type: ignore[arg-type]
    return OnnxEmbedder(resolve(manifest.name, tmp_path / "models"))


@pytest.mark.parametrize("architecture", ["bert", "mpnet"])
def test_fp32_conversion_matches_a_numpy_forward_pass(tmp_path: Path, architecture: str) -> None:
    """Texts of different lengths in one batch: padding, MPNet's positions after its pad id
    and its relative buckets all have to come out as the reference computes them."""
    folder = write_tiny_model(tmp_path / architecture, architecture)
    embedder = _added(tmp_path, folder)
    expected = np.stack([forward(folder, text) for text in TEXTS])
    np.testing.assert_allclose(embedder.embed(TEXTS), expected, atol=2e-5)
    assert embedder.dimension == 32


@pytest.mark.parametrize("architecture", ["bert", "mpnet"])
def test_int8_conversion_stays_close_and_is_the_same_alone_or_in_a_batch(
    tmp_path: Path, architecture: str
) -> None:
    folder = write_tiny_model(tmp_path / architecture, architecture)
    embedder = _added(tmp_path, folder, "int8")
    vectors = embedder.embed(TEXTS)
    expected = np.stack([forward(folder, text) for text in TEXTS])
    assert ((vectors * expected).sum(axis=1) > 0.9).all()
    for text, vector in zip(TEXTS, vectors, strict=True):
        np.testing.assert_array_equal(embedder.embed_query(text), vector)


def test_the_manifest_records_what_was_checked_and_names_the_vector_space(tmp_path: Path) -> None:
    folder = write_tiny_model(tmp_path / "tiny-bert", "bert")
    manifest = install(tmp_path / "models", build_folder(folder, None, "int8"))
    assert manifest.name == "tiny-bert"
    assert manifest.embedder.startswith("onnx:tiny-bert@int8:")
    assert manifest.reference_error is not None and manifest.reference_error < 1e-4
    assert manifest.quantised_cosine is not None and manifest.quantised_cosine > 0.75
    assert (manifest.pooling, manifest.max_tokens, manifest.pad_id) == ("mean", 32, 0)
    assert read_manifest(tmp_path / "models" / "tiny-bert") == manifest


def test_the_same_name_with_other_weights_is_another_vector_space(tmp_path: Path) -> None:
    first = build_folder(write_tiny_model(tmp_path / "a", "bert", seed=1), "m", "fp32")
    second = build_folder(write_tiny_model(tmp_path / "b", "bert", seed=2), "m", "fp32")
    assert first.manifest.embedder != second.manifest.embedder


def test_cls_pooling_and_prompts_come_from_the_folder(tmp_path: Path) -> None:
    folder = write_tiny_model(
        tmp_path / "e5ish",
        "bert",
        pooling="cls",
        prompts={"query": "query: ", "document": "passage: "},
    )
    embedder = _added(tmp_path, folder)
    assert embedder.model.pooling == "cls"
    # "query" and "passage" are not in the tiny vocabulary: both become [UNK] tokens.
    np.testing.assert_allclose(
        embedder.embed_query("use pnpm"), forward(folder, "query: use pnpm"), atol=2e-5
    )
    np.testing.assert_allclose(
        embedder.embed(["use pnpm"])[0], forward(folder, "passage: use pnpm"), atol=2e-5
    )


def test_adding_a_second_time_needs_replace(tmp_path: Path) -> None:
    folder = write_tiny_model(tmp_path / "tiny", "bert")
    install(tmp_path / "models", build_folder(folder, None, "fp32"))
    with pytest.raises(InvalidInputError, match="--replace"):
        install(tmp_path / "models", build_folder(folder, None, "fp32"))
    install(tmp_path / "models", build_folder(folder, None, "int8"), replace=True)
    manifest = read_manifest(tmp_path / "models" / "tiny")
    assert manifest is not None and manifest.precision == "int8"
    assert [p.name for p in (tmp_path / "models").iterdir()] == ["tiny"]


def test_a_corrupted_model_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    folder = write_tiny_model(tmp_path / "tiny", "bert")
    manifest = install(tmp_path / "models", build_folder(folder, None, "fp32"))
    model_file = tmp_path / "models" / "tiny" / "model.onnx"
    data = bytearray(model_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model_file.write_bytes(bytes(data))
    with pytest.raises(EmbedderError) as err:
        OnnxEmbedder(model_of(tmp_path / "models" / "tiny", manifest))
    message = str(err.value)
    assert str(model_file) in message and "corrupt or altered" in message
    assert f"cortex-tui model add {folder} --name tiny --replace" in message


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda f: (f / "tokenizer.json").unlink(), r"tokenizer\.json is missing"),
        (lambda f: (f / "config.json").unlink(), r"config\.json is missing"),
        (
            lambda f: (f / "model.safetensors").rename(f / "pytorch_model.bin"),
            r"model\.safetensors is missing \(it has pytorch_model\.bin, a pickle",
        ),
        (
            lambda f: (f / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{"),
            r"cannot read .*model\.safetensors",
        ),
        (
            lambda f: (f / "config.json").write_text(json.dumps({"model_type": "t5"})),
            r"model_type 't5'; cortex-tui converts bert and mpnet",
        ),
    ],
    ids=["no-tokenizer", "no-config", "pickle-only", "bad-safetensors", "other-architecture"],
)
def test_a_folder_that_cannot_be_converted_is_reported(
    tmp_path: Path, damage: object, expected: str
) -> None:
    folder = write_tiny_model(tmp_path / "tiny", "bert")
    damage(folder)  # type: ignore[operator]
    with pytest.raises(EmbedderError, match=expected):
        build_folder(folder, None, "fp32")
    assert not (tmp_path / "models").exists()


def test_a_missing_tensor_is_named(tmp_path: Path) -> None:
    from safetensors.numpy import load_file, save_file

    folder = write_tiny_model(tmp_path / "tiny", "mpnet")
    tensors = load_file(str(folder / "model.safetensors"))
    del tensors["mpnet.encoder.relative_attention_bias.weight"]
    save_file(tensors, str(folder / "model.safetensors"))
    with pytest.raises(EmbedderError, match=r"no tensor encoder\.relative_attention_bias\.weight"):
        build_folder(folder, None, "fp32")
