"""A pair-classification model folder the tests write themselves: an ONNX graph made with
`onnx.helper` (token ids → a per-word score table → summed logits), a word-level
`tokenizer.json` that encodes pairs, and a manifest. Each word votes for labels, so a
test can say which pairs the model calls what."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
from tokenizers.models import WordLevel

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]")


def write_pair_model(
    folder: Path,
    labels: Sequence[str],
    votes: Mapping[str, Mapping[str, float]],
    *,
    name: str = "tiny-nli",
    fixed_length: int | None = None,
    id_type: int = TensorProto.INT64,
    type_ids: bool = False,
    scores: int | None = None,
) -> Path:
    """`votes` maps a word to the logit it adds per label; unknown words add nothing.
    `fixed_length` fixes the sequence dimension (the slot pads to it); `type_ids` adds a
    `token_type_ids` input; `scores` makes the graph give that many outputs instead."""
    folder.mkdir(parents=True)
    words = sorted({w.lower() for w in votes})
    vocab = {token: i for i, token in enumerate([*SPECIAL, *words])}
    _write_tokenizer(folder / "tokenizer.json", vocab)
    width = scores or len(labels)
    table = np.zeros((len(vocab), width), dtype=np.float32)
    for word, by_label in votes.items():
        for label, value in by_label.items():
            table[vocab[word.lower()], list(labels).index(label)] = value
    onnx.save(_graph(table, fixed_length, id_type, type_ids), str(folder / "model.onnx"))
    (folder / "manifest.json").write_text(json.dumps({"name": name, "labels": list(labels)}))
    return folder


def _graph(
    table: np.ndarray, fixed_length: int | None, id_type: int, type_ids: bool
) -> onnx.ModelProto:
    seq: int | str = fixed_length if fixed_length is not None else "seq"
    inputs = [
        helper.make_tensor_value_info("input_ids", id_type, ["batch", seq]),
        helper.make_tensor_value_info("attention_mask", id_type, ["batch", seq]),
    ]
    if type_ids:
        inputs.append(helper.make_tensor_value_info("token_type_ids", id_type, ["batch", seq]))
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["votes"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
        helper.make_node("Mul", ["votes", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "seq_axis"], ["logits"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_pair_model",
        inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", table.shape[1]])],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "last"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _write_tokenizer(path: Path, vocab: dict[str, int]) -> None:
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.save(str(path))
