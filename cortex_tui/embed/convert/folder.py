"""Reading a sentence-transformers model folder: weights, tokenizer and how it pools.

Only `model.safetensors` is read: a `pytorch_model.bin` is a pickle, which runs code
when loaded, so a folder that has only that is refused with the way to convert it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cortex_tui.embed.convert.encoder import Array, Encoder, encoder_from
from cortex_tui.embed.pooling import Pooling
from cortex_tui.errors import EmbedderError

_POOLING_MODES: dict[str, Pooling] = {
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
}


@dataclass(frozen=True)
class ModelFolder:
    path: Path
    encoder: Encoder
    tokenizer_path: Path
    pooling: Pooling
    max_tokens: int
    query_prefix: str
    document_prefix: str
    weights_sha256: str


def read_folder(path: Path) -> ModelFolder:
    """Everything a conversion needs from `path`, or an `EmbedderError` naming the file
    that is missing or unreadable."""
    if not path.is_dir():
        raise EmbedderError(f"{path} is not a folder; give the model's folder")
    config = _json(path / "config.json", required=True)
    weights = path / "model.safetensors"
    if not weights.is_file():
        hint = (
            " (it has pytorch_model.bin, a pickle cortex-tui does not load: save the model "
            "with safe_serialization=True)"
            if (path / "pytorch_model.bin").exists()
            else ""
        )
        raise EmbedderError(f"{weights} is missing{hint}")
    tokenizer = path / "tokenizer.json"
    if not tokenizer.is_file():
        raise EmbedderError(f"{tokenizer} is missing: cortex-tui needs the fast tokenizer file")
    tensors, digest = _safetensors(weights)
    encoder = encoder_from(config, tensors)
    declared = _json(path / "sentence_bert_config.json").get("max_seq_length")
    max_tokens = encoder.max_tokens
    if isinstance(declared, int) and 0 < declared < max_tokens:
        max_tokens = declared
    query_prefix, document_prefix = _prefixes(_json(path / "config_sentence_transformers.json"))
    return ModelFolder(
        path=path,
        encoder=encoder,
        tokenizer_path=tokenizer,
        pooling=_pooling(path),
        max_tokens=max_tokens,
        query_prefix=query_prefix,
        document_prefix=document_prefix,
        weights_sha256=digest,
    )


def _json(path: Path, *, required: bool = False) -> dict[str, Any]:
    if not path.exists():
        if required:
            raise EmbedderError(f"{path} is missing")
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EmbedderError(f"cannot read {path}: {exc}") from None
    if not isinstance(value, dict):
        raise EmbedderError(f"{path} does not hold a JSON object")
    return value


def _safetensors(path: Path) -> tuple[dict[str, Array], str]:
    """The tensors as float32 and the file's SHA-256 (half-precision checkpoints are
    widened: the conversion quantises from float32 either way)."""
    import hashlib

    from safetensors import SafetensorError
    from safetensors.numpy import load

    try:
        data = path.read_bytes()
        raw = load(data)
    except (OSError, SafetensorError, ValueError) as exc:
        raise EmbedderError(f"cannot read {path}: {exc}") from None
    tensors = {name: np.asarray(value, dtype=np.float32) for name, value in raw.items()}
    return tensors, hashlib.sha256(data).hexdigest()


def _pooling(path: Path) -> Pooling:
    """The pooling module's mode; a folder without one pools by mean, as
    sentence-transformers itself assumes for a bare transformer."""
    modules = _json_list(path / "modules.json")
    folder = next(
        (
            m.get("path", "")
            for m in modules
            if isinstance(m, dict) and str(m.get("type", "")).endswith("Pooling")
        ),
        "1_Pooling",
    )
    config = _json(path / folder / "config.json")
    chosen = [mode for key, mode in _POOLING_MODES.items() if config.get(key)]
    others = [k for k, v in config.items() if k.startswith("pooling_mode_") and v]
    if not config or chosen == []:
        if others:
            raise EmbedderError(
                f"{path / folder / 'config.json'} pools by {', '.join(others)}; cortex-tui "
                "supports mean, cls and max pooling"
            )
        return "mean"
    if len(others) > 1:
        raise EmbedderError(
            f"{path / folder / 'config.json'} combines {', '.join(others)}; cortex-tui "
            "supports one pooling mode"
        )
    return chosen[0]


def _json_list(path: Path) -> list[Any]:
    if not path.exists():
        return []
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EmbedderError(f"cannot read {path}: {exc}") from None
    return value if isinstance(value, list) else []


def _prefixes(config: dict[str, Any]) -> tuple[str, str]:
    """The query and document prompts the model was trained with (e5's "query: " and
    "passage: "); none for most models."""
    prompts = config.get("prompts")
    if not isinstance(prompts, dict):
        return "", ""
    query = prompts.get("query", "")
    document = prompts.get("document", prompts.get("passage", ""))
    return (query if isinstance(query, str) else ""), (
        document if isinstance(document, str) else ""
    )
