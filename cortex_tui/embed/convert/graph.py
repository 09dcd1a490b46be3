"""Writing an `Encoder` as an ONNX graph with the `onnx` helper API: no torch, no tracing.

The graph takes `input_ids` and `attention_mask` ([batch, sequence] int64; BERT also
`token_type_ids`, as every BERT export does) and returns `last_hidden_state`; pooling
stays outside it, in the embedder. Linear layers are plain MatMul + Add with constant
weights, which is what dynamic int8 quantisation rewrites.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cortex_tui.embed.convert.encoder import Array, Encoder, Layer, relative_buckets

OPSET = 17
"""LayerNormalization is an ONNX operator from opset 17 on."""


class _Builder:
    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper = helper
        self._numpy_helper = numpy_helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def constant(self, value: Any, hint: str = "c") -> str:
        name = self.name(hint)
        self.initializers.append(self._numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        output = self.name(op_type.lower())
        self.nodes.append(self._helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, weights: tuple[Array, Array], hint: str) -> str:
        w, b = weights
        product = self.op("MatMul", x, self.constant(w, f"{hint}_w"))
        return self.op("Add", product, self.constant(b, f"{hint}_b"))

    def layer_norm(self, x: str, weights: tuple[Array, Array], eps: float, hint: str) -> str:
        gamma, beta = weights
        return self.op(
            "LayerNormalization",
            x,
            self.constant(gamma, f"{hint}_gamma"),
            self.constant(beta, f"{hint}_beta"),
            axis=-1,
            epsilon=eps,
        )


def encoder_graph(encoder: Encoder) -> bytes:
    """The serialised ONNX model of `encoder` (opset 17)."""
    from onnx import TensorProto, checker, helper

    b = _Builder()
    inputs = ["input_ids", "attention_mask"]
    if encoder.token_type_embeddings is not None:
        inputs.append("token_type_ids")
    length = b.op("Gather", b.op("Shape", "input_ids"), b.constant(np.int64(1)), axis=0)
    length_1d = b.op("Unsqueeze", length, b.constant(np.array([0], dtype=np.int64)))

    x = b.op("Gather", b.constant(encoder.word_embeddings, "word"), "input_ids", axis=0)
    offset = encoder.position_offset
    positions = b.op(
        "Slice",
        b.constant(encoder.position_embeddings, "position"),
        b.constant(np.array([offset], dtype=np.int64)),
        b.op("Add", length_1d, b.constant(np.array([offset], dtype=np.int64))),
        b.constant(np.array([0], dtype=np.int64)),
    )
    x = b.op("Add", x, positions)
    if encoder.token_type_embeddings is not None:
        types = b.constant(encoder.token_type_embeddings, "token_type")
        x = b.op("Add", x, b.op("Gather", types, "token_type_ids", axis=0))
    x = b.layer_norm(x, encoder.embedding_norm, encoder.eps, "embeddings")

    bias = _attention_bias(b, encoder, length_1d)
    for i, layer in enumerate(encoder.layers):
        x = _layer(b, encoder, layer, x, bias, f"layer{i}")

    b.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        b.nodes,
        f"{encoder.architecture}-encoder",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
            for n in inputs
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", encoder.hidden]
            )
        ],
        b.initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="cortex-tui"
    )
    # The largest models exceed protobuf's 2 GB check only far beyond what runs on a CPU
    # in milliseconds; a model that fails it is reported by the caller.
    checker.check_model(model)
    serialised: bytes = model.SerializeToString()
    return serialised


def _attention_bias(b: _Builder, encoder: Encoder, length_1d: str) -> str:
    """[batch, 1 or heads, sequence, sequence] added to every layer's scores: the
    padding mask, plus MPNet's relative-position bias."""
    mask = b.op("Cast", "attention_mask", to=1)  # 1 = FLOAT
    blocked = b.op("Sub", b.constant(np.float32(1.0)), mask)
    bias = b.op("Mul", blocked, b.constant(np.float32(np.finfo(np.float32).min)))
    bias = b.op("Unsqueeze", bias, b.constant(np.array([1, 2], dtype=np.int64)))
    if encoder.relative_bias is None:
        return bias
    # The bucket of every (query, key) pair up to the longest input, sliced to this
    # batch's length: the table depends on the length alone.
    longest = encoder.max_tokens
    table = relative_buckets(longest, encoder.relative_bias.shape[0], encoder.max_distance)
    zeros = b.constant(np.array([0, 0], dtype=np.int64))
    ends = b.op("Concat", length_1d, length_1d, axis=0)
    buckets = b.op("Slice", b.constant(table, "buckets"), zeros, ends)
    per_head = b.op("Gather", b.constant(encoder.relative_bias, "relative"), buckets, axis=0)
    per_head = b.op("Transpose", per_head, perm=[2, 0, 1])
    per_head = b.op("Unsqueeze", per_head, b.constant(np.array([0], dtype=np.int64)))
    return b.op("Add", bias, per_head)


def _layer(b: _Builder, encoder: Encoder, layer: Layer, x: str, bias: str, hint: str) -> str:
    size = encoder.hidden // encoder.heads
    split = b.constant(np.array([0, 0, encoder.heads, size], dtype=np.int64))

    def heads(weights: tuple[Array, Array], part: str, perm: list[int]) -> str:
        projected = b.linear(x, weights, f"{hint}_{part}")
        return b.op("Transpose", b.op("Reshape", projected, split), perm=perm)

    q = heads(layer.query, "q", [0, 2, 1, 3])
    k = heads(layer.key, "k", [0, 2, 3, 1])
    v = heads(layer.value, "v", [0, 2, 1, 3])
    scores = b.op("Div", b.op("MatMul", q, k), b.constant(np.float32(np.sqrt(size))))
    weights = b.op("Softmax", b.op("Add", scores, bias), axis=-1)
    context = b.op("Transpose", b.op("MatMul", weights, v), perm=[0, 2, 1, 3])
    merged = b.op("Reshape", context, b.constant(np.array([0, 0, encoder.hidden], dtype=np.int64)))
    attended = b.op("Add", b.linear(merged, layer.attention_out, f"{hint}_o"), x)
    attended = b.layer_norm(attended, layer.attention_norm, encoder.eps, f"{hint}_attn")
    inner = b.linear(attended, layer.intermediate, f"{hint}_ff1")
    # GELU(x) = x · ½(1 + erf(x / √2)), the exact form BERT and MPNet use.
    erf = b.op("Erf", b.op("Div", inner, b.constant(np.float32(np.sqrt(2.0)))))
    half = b.op("Mul", b.op("Add", erf, b.constant(np.float32(1.0))), b.constant(np.float32(0.5)))
    activated = b.op("Mul", inner, half)
    out = b.op("Add", b.linear(activated, layer.output, f"{hint}_ff2"), attended)
    return b.layer_norm(out, layer.output_norm, encoder.eps, f"{hint}_out")
