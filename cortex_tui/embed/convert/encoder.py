"""A transformer encoder's weights under one naming, whichever architecture they came from.

BERT and MPNet differ in three places only: BERT adds token-type embeddings and starts
positions at 0; MPNet starts them after its padding id and adds a relative-position
bias, shared by every layer, to the attention scores. Everything else (post-norm
layers, erf GELU, mean pooling) is the same, so one graph writer and one reference
forward pass serve both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from cortex_tui.errors import EmbedderError

Array = npt.NDArray[np.float32]
Architecture = Literal["bert", "mpnet"]
ARCHITECTURES: tuple[Architecture, ...] = ("bert", "mpnet")


@dataclass(frozen=True)
class Layer:
    """One encoder layer; linear weights as `x @ w` wants them ([in, out])."""

    query: tuple[Array, Array]
    key: tuple[Array, Array]
    value: tuple[Array, Array]
    attention_out: tuple[Array, Array]
    attention_norm: tuple[Array, Array]
    intermediate: tuple[Array, Array]
    output: tuple[Array, Array]
    output_norm: tuple[Array, Array]


@dataclass(frozen=True)
class Encoder:
    architecture: Architecture
    heads: int
    eps: float
    pad_id: int
    word_embeddings: Array
    position_embeddings: Array
    token_type_embeddings: Array | None
    embedding_norm: tuple[Array, Array]
    layers: tuple[Layer, ...]
    relative_bias: Array | None
    """MPNet: [buckets, heads]."""
    max_distance: int = 128

    @property
    def hidden(self) -> int:
        return int(self.word_embeddings.shape[1])

    @property
    def position_offset(self) -> int:
        """Index of the first position's row: MPNet (like RoBERTa) skips pad_id + 1 rows."""
        return self.pad_id + 1 if self.architecture == "mpnet" else 0

    @property
    def max_tokens(self) -> int:
        return int(self.position_embeddings.shape[0]) - self.position_offset


def encoder_from(config: Mapping[str, Any], tensors: Mapping[str, Array]) -> Encoder:
    """Map a Hugging Face checkpoint's tensors (`model.safetensors`) to an `Encoder`.

    Raises `EmbedderError` naming the first tensor or setting that is missing, so a
    half-copied folder is reported as such rather than as a shape error deep inside.
    """
    architecture = config.get("model_type")
    if architecture not in ARCHITECTURES:
        raise EmbedderError(
            f"config.json names model_type {architecture!r}; cortex-tui converts "
            f"{' and '.join(ARCHITECTURES)} models"
        )
    activation = config.get("hidden_act", "gelu")
    if activation != "gelu":
        raise EmbedderError(
            f"config.json names hidden_act {activation!r}; cortex-tui converts models "
            "with the exact (erf) GELU only"
        )
    named = _Tensors(_without_prefix(tensors, architecture))
    layers = tuple(
        _layer(named, architecture, i) for i in range(_setting(config, "num_hidden_layers"))
    )
    return Encoder(
        architecture=architecture,
        heads=_setting(config, "num_attention_heads"),
        eps=float(config.get("layer_norm_eps", 1e-12)),
        pad_id=int(config.get("pad_token_id") or 0),
        word_embeddings=named.get("embeddings.word_embeddings.weight"),
        position_embeddings=named.get("embeddings.position_embeddings.weight"),
        token_type_embeddings=(
            named.get("embeddings.token_type_embeddings.weight") if architecture == "bert" else None
        ),
        embedding_norm=named.norm("embeddings.LayerNorm"),
        layers=layers,
        relative_bias=(
            named.get("encoder.relative_attention_bias.weight") if architecture == "mpnet" else None
        ),
    )


def _setting(config: Mapping[str, Any], key: str) -> int:
    value = config.get(key)
    if not isinstance(value, int) or value < 1:
        raise EmbedderError(f"config.json lacks a positive {key}")
    return value


def _without_prefix(tensors: Mapping[str, Array], architecture: str) -> dict[str, Array]:
    """Checkpoints saved from a task model prefix every name with `bert.` / `mpnet.`."""
    prefix = f"{architecture}."
    return {name.removeprefix(prefix): value for name, value in tensors.items()}


class _Tensors:
    def __init__(self, tensors: Mapping[str, Array]) -> None:
        self._tensors = tensors

    def get(self, name: str) -> Array:
        try:
            value = self._tensors[name]
        except KeyError:
            raise EmbedderError(f"model.safetensors has no tensor {name}") from None
        return np.asarray(value, dtype=np.float32)

    def linear(self, name: str) -> tuple[Array, Array]:
        """PyTorch stores a Linear's weight as [out, in]; the graph multiplies `x @ w`."""
        return np.ascontiguousarray(self.get(f"{name}.weight").T), self.get(f"{name}.bias")

    def norm(self, name: str) -> tuple[Array, Array]:
        return self.get(f"{name}.weight"), self.get(f"{name}.bias")


def _layer(t: _Tensors, architecture: str, i: int) -> Layer:
    base = f"encoder.layer.{i}"
    if architecture == "bert":
        attention = f"{base}.attention.self"
        q, k, v = (t.linear(f"{attention}.{part}") for part in ("query", "key", "value"))
        out = t.linear(f"{base}.attention.output.dense")
        attention_norm = t.norm(f"{base}.attention.output.LayerNorm")
    else:
        attention = f"{base}.attention.attn"
        q, k, v, out = (t.linear(f"{attention}.{part}") for part in ("q", "k", "v", "o"))
        attention_norm = t.norm(f"{base}.attention.LayerNorm")
    return Layer(
        query=q,
        key=k,
        value=v,
        attention_out=out,
        attention_norm=attention_norm,
        intermediate=t.linear(f"{base}.intermediate.dense"),
        output=t.linear(f"{base}.output.dense"),
        output_norm=t.norm(f"{base}.output.LayerNorm"),
    )


def relative_buckets(length: int, buckets: int, max_distance: int) -> npt.NDArray[np.int64]:
    """MPNet's (T5's) bucket of each (query, key) offset: exact for near offsets, log-spaced
    up to `max_distance`, one half of the buckets for each direction."""
    offsets = np.arange(length)[None, :] - np.arange(length)[:, None]
    n = -offsets
    half = buckets // 2
    result = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    scaled = np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact)
    large = np.minimum(exact + (scaled * (half - exact)).astype(np.int64), half - 1)
    table: npt.NDArray[np.int64] = result + np.where(n < exact, n, large)
    return table


def reference_hidden(
    encoder: Encoder, input_ids: npt.NDArray[np.int64], attention_mask: npt.NDArray[np.int64]
) -> Array:
    """The last hidden state, computed in numpy as the architecture's own code does it
    (MPNet's position ids from the padding included): what a conversion is checked
    against."""
    batch, length = input_ids.shape
    if encoder.architecture == "mpnet":
        real = (input_ids != encoder.pad_id).astype(np.int64)
        positions = np.cumsum(real, axis=1) * real + encoder.pad_id
    else:
        positions = np.broadcast_to(np.arange(length), (batch, length))
    x = encoder.word_embeddings[input_ids] + encoder.position_embeddings[positions]
    if encoder.token_type_embeddings is not None:
        x = x + encoder.token_type_embeddings[0]
    x = _layer_norm(x, encoder.embedding_norm, encoder.eps)
    bias = np.where(attention_mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min)
    if encoder.relative_bias is not None:
        buckets = relative_buckets(length, encoder.relative_bias.shape[0], encoder.max_distance)
        bias = bias + encoder.relative_bias[buckets].transpose(2, 0, 1)[None]
    for layer in encoder.layers:
        x = _reference_layer(encoder, layer, x, bias.astype(np.float32))
    return x.astype(np.float32)


def _reference_layer(encoder: Encoder, layer: Layer, x: Array, bias: Array) -> Array:
    batch, length, hidden = x.shape
    size = hidden // encoder.heads

    def heads(weights: tuple[Array, Array]) -> Array:
        projected = _linear(x, weights).reshape(batch, length, encoder.heads, size)
        return projected.transpose(0, 2, 1, 3)

    q, k, v = heads(layer.query), heads(layer.key), heads(layer.value)
    scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
    attended = _layer_norm(
        _linear(context, layer.attention_out) + x, layer.attention_norm, encoder.eps
    )
    inner = _gelu(_linear(attended, layer.intermediate))
    return _layer_norm(_linear(inner, layer.output) + attended, layer.output_norm, encoder.eps)


def _gelu(x: Array) -> Array:
    """x·Φ(x) with erf from Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7, below
    float32's resolution at these magnitudes): numpy has no erf of its own."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    result: Array = 0.5 * x * (1.0 + erf)
    return result


def _linear(x: Array, weights: tuple[Array, Array]) -> Array:
    w, b = weights
    result: Array = x @ w + b
    return result


def _layer_norm(x: Array, weights: tuple[Array, Array], eps: float) -> Array:
    gamma, beta = weights
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    result: Array = (x - mean) / np.sqrt(variance + eps) * gamma + beta
    return result
