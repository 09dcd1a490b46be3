"""Tiny sentence-transformers folders written by the tests: random weights, two layers,
a word-level vocabulary, in the very layout a hub download has."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
from tokenizers.models import WordPiece

WORDS = (
    "the deploy script needs staging token use pnpm not npm in this repository we ship on "
    "friday caroline went to a support group and said it was powerful server runs port"
).split()
HIDDEN, HEADS, LAYERS, INNER, POSITIONS = 32, 4, 2, 64, 40


def write_tiny_model(
    folder: Path,
    architecture: str,
    *,
    seed: int = 0,
    pooling: str = "mean",
    prompts: dict[str, str] | None = None,
) -> Path:
    """A BERT or MPNet folder at `folder`; returns it."""
    folder.mkdir(parents=True)
    special = (
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
        if architecture == "bert"
        else ["<s>", "<pad>", "</s>", "<unk>"]
    )
    vocab = {token: i for i, token in enumerate([*special, *dict.fromkeys(WORDS)])}
    pad_id = vocab[special[0] if architecture == "bert" else "<pad>"]
    _write_tokenizer(folder / "tokenizer.json", vocab, architecture)
    rng = np.random.default_rng(seed)
    positions = POSITIONS + (pad_id + 1 if architecture == "mpnet" else 0)
    save_file(_tensors(rng, architecture, len(vocab), positions), str(folder / "model.safetensors"))
    config = {
        "model_type": architecture,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INNER,
        "max_position_embeddings": positions,
        "layer_norm_eps": 1e-12 if architecture == "bert" else 1e-5,
        "pad_token_id": pad_id,
        "hidden_act": "gelu",
        "vocab_size": len(vocab),
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "modules.json").write_text(
        json.dumps(
            [
                {
                    "idx": 0,
                    "name": "0",
                    "path": "",
                    "type": "sentence_transformers.models.Transformer",
                },
                {
                    "idx": 1,
                    "name": "1",
                    "path": "1_Pooling",
                    "type": "sentence_transformers.models.Pooling",
                },
                {
                    "idx": 2,
                    "name": "2",
                    "path": "2_Normalize",
                    "type": "sentence_transformers.models.Normalize",
                },
            ]
        )
    )
    (folder / "1_Pooling").mkdir()
    modes = {"mean": "pooling_mode_mean_tokens", "cls": "pooling_mode_cls_token"}
    pooling_config = {"word_embedding_dimension": HIDDEN, **dict.fromkeys(modes.values(), False)}
    pooling_config[modes[pooling]] = True
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling_config))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 32}))
    if prompts is not None:
        (folder / "config_sentence_transformers.json").write_text(json.dumps({"prompts": prompts}))
    return folder


def _write_tokenizer(path: Path, vocab: dict[str, int], architecture: str) -> None:
    unknown = "[UNK]" if architecture == "bert" else "<unk>"
    tokenizer = Tokenizer(WordPiece(vocab, unk_token=unknown))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    first, last = ("[CLS]", "[SEP]") if architecture == "bert" else ("<s>", "</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{first} $A {last}",
        special_tokens=[(first, vocab[first]), (last, vocab[last])],
    )
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.save(str(path))


def _tensors(
    rng: np.random.Generator, architecture: str, vocab: int, positions: int
) -> dict[str, np.ndarray]:
    def r(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    prefix = f"{architecture}."  # as a checkpoint saved from a task model names them
    t = {
        "embeddings.word_embeddings.weight": r(vocab, HIDDEN),
        "embeddings.position_embeddings.weight": r(positions, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + r(HIDDEN),
        "embeddings.LayerNorm.bias": r(HIDDEN),
    }
    if architecture == "bert":
        t["embeddings.token_type_embeddings.weight"] = r(2, HIDDEN)
        parts = [
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ]
        attention_norm = "attention.output.LayerNorm"
    else:
        t["encoder.relative_attention_bias.weight"] = r(32, HEADS)
        parts = ["attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o"]
        attention_norm = "attention.LayerNorm"
    for i in range(LAYERS):
        base = f"encoder.layer.{i}"
        for part in parts:
            t[f"{base}.{part}.weight"] = r(HIDDEN, HIDDEN)
            t[f"{base}.{part}.bias"] = r(HIDDEN)
        for norm in (attention_norm, "output.LayerNorm"):
            t[f"{base}.{norm}.weight"] = 1 + r(HIDDEN)
            t[f"{base}.{norm}.bias"] = r(HIDDEN)
        t[f"{base}.intermediate.dense.weight"] = r(INNER, HIDDEN)
        t[f"{base}.intermediate.dense.bias"] = r(INNER)
        t[f"{base}.output.dense.weight"] = r(HIDDEN, INNER)
        t[f"{base}.output.dense.bias"] = r(HIDDEN)
    return {prefix + name: value for name, value in t.items()}


def forward(folder: Path, text: str) -> np.ndarray:
    """The pooled, normalised vector of one text, computed straight from the checkpoint's
    own tensor names, one head at a time, the way the Hugging Face modules do it (MPNet's
    relative buckets included): an oracle written apart from the converter."""
    from safetensors.numpy import load_file

    config = json.loads((folder / "config.json").read_text())
    arch = config["model_type"]
    t = {
        k.removeprefix(f"{arch}."): v
        for k, v in load_file(str(folder / "model.safetensors")).items()
    }
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = tokenizer.encode(text).ids[:32]
    n, eps, heads = len(ids), config["layer_norm_eps"], config["num_attention_heads"]

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * t[f"{name}.weight"] + t[f"{name}.bias"]

    def linear(x: np.ndarray, name: str) -> np.ndarray:
        return x @ t[f"{name}.weight"].T + t[f"{name}.bias"]

    first_position = config["pad_token_id"] + 1 if arch == "mpnet" else 0
    x = t["embeddings.word_embeddings.weight"][ids]
    x = x + t["embeddings.position_embeddings.weight"][first_position : first_position + n]
    if arch == "bert":
        x = x + t["embeddings.token_type_embeddings.weight"][0]
    x = norm(x, "embeddings.LayerNorm")
    bias = np.zeros((heads, n, n))
    if arch == "mpnet":
        table = t["encoder.relative_attention_bias.weight"]
        for q in range(n):
            for k in range(n):
                bias[:, q, k] = table[_bucket(k - q)]
    size = x.shape[1] // heads
    for i in range(config["num_hidden_layers"]):
        b = f"encoder.layer.{i}"
        names = (
            [f"{b}.attention.self.{p}" for p in ("query", "key", "value")]
            + [f"{b}.attention.output.dense"]
            if arch == "bert"
            else [f"{b}.attention.attn.{p}" for p in "qkvo"]
        )
        q, k, v = (linear(x, name) for name in names[:3])
        context = np.zeros_like(x)
        for h in range(heads):
            cols = slice(h * size, (h + 1) * size)
            scores = q[:, cols] @ k[:, cols].T / np.sqrt(size) + bias[h]
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            context[:, cols] = (weights / weights.sum(-1, keepdims=True)) @ v[:, cols]
        attention_norm = (
            f"{b}.attention.output.LayerNorm" if arch == "bert" else f"{b}.attention.LayerNorm"
        )
        x = norm(linear(context, names[3]) + x, attention_norm)
        inner = linear(x, f"{b}.intermediate.dense")
        inner = inner * 0.5 * (1 + np.vectorize(math.erf)(inner / math.sqrt(2)))
        x = norm(linear(inner, f"{b}.output.dense") + x, f"{b}.output.LayerNorm")
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    pooled = x[0] if pooling["pooling_mode_cls_token"] else x.mean(0)
    return pooled / np.linalg.norm(pooled)


def _bucket(offset: int, buckets: int = 32, max_distance: int = 128) -> int:
    n = -offset
    half = buckets // 2
    result = half if n < 0 else 0
    n = abs(n)
    exact = half // 2
    if n < exact:
        return result + n
    large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (half - exact))
    return result + min(large, half - 1)
