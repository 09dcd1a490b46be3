"""How close each int8 mix of the default MiniLM stays to fp32, and what it costs: the
figures behind the choice of quantising every linear layer (docs/measurements.md,
"Embedding models").

    python -m cortex_tui.bench.quantisation locomo10.json

The fp32 graph is the packaged weights folded back to fp32 (what the packaged file
computes). Each mix leaves some of the 36 linear layers in fp32 — by their place in a
BERT layer: query, key, value, attention output, FFN input, FFN output — and is compared
with fp32 on LoCoMo turns and questions: the cosine of each turn's vector to its fp32
one (mean and worst), how many of each question's fp32 top 10 turns it keeps, and its
query p50 and bulk texts/s on this machine (one text per run, as int8 runs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from cortex_tui.bench.timing import time_query_embedding
from cortex_tui.embed.base import Matrix
from cortex_tui.embed.catalogue import packaged_model
from cortex_tui.embed.convert.quantise import dequantise_storage_int8, dynamic_int8
from cortex_tui.embed.onnx import OnnxEmbedder
from cortex_tui.eval.locomo import locomo_datasets

PLACES = ("query", "key", "value", "attention output", "FFN input", "FFN output")
MIXES: dict[str, tuple[str, ...]] = {
    "all int8 (default)": (),
    "FFN output fp32": ("FFN output",),
    "FFN fp32": ("FFN input", "FFN output"),
    "query, key, value fp32": ("query", "key", "value"),
}


def linear_layers(fp32: bytes) -> list[tuple[str, str]]:
    """(node name, place) of every MatMul with a constant weight, in graph order."""
    import onnx

    graph = onnx.load_from_string(fp32).graph
    weights = {init.name for init in graph.initializer}
    names = [n.name for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    return [(name, PLACES[i % len(PLACES)]) for i, name in enumerate(names)]


def compare(locomo: Path, turns: int, questions: int) -> list[dict[str, float | str]]:
    raw = json.loads(locomo.read_text(encoding="utf-8"))
    datasets = locomo_datasets(raw, locomo)
    texts = [m["content"] for d in datasets for m in d["memories"]][:turns]
    asked = [q["query"] for d in datasets for q in d["queries"]][:questions]
    packaged = packaged_model()
    fp32 = dequantise_storage_int8(packaged.model_path.read_bytes())
    layers = linear_layers(fp32)
    with tempfile.TemporaryDirectory(prefix="cortex-quantisation-") as tmp:

        def embedder(model: bytes) -> OnnxEmbedder:
            path = Path(tmp) / f"{hashlib.sha256(model).hexdigest()[:12]}.onnx"
            path.write_bytes(model)
            runnable = replace(
                packaged,
                model_path=path,
                model_sha256=hashlib.sha256(model).hexdigest(),
                one_text_per_run=True,
            )
            return OnnxEmbedder(runnable)

        reference = embedder(fp32)
        ref_turns, ref_questions = reference.embed(texts), reference.embed(asked)
        rows: list[dict[str, float | str]] = []
        for mix, places in MIXES.items():
            kept = [name for name, place in layers if place in places]
            model = embedder(dynamic_int8(fp32, keep_fp32=kept))
            vectors = model.embed(texts)
            cosine = (vectors * ref_turns).sum(axis=1)
            rows.append(
                {
                    "mix": mix,
                    **_speed(model, asked, texts),
                    "cosine mean": float(cosine.mean()),
                    "cosine worst": float(cosine.min()),
                    "top-10 kept": _top10_agreement(
                        ref_turns @ ref_questions.T, vectors @ model.embed(asked).T
                    ),
                }
            )
    return rows


def _top10_agreement(reference: Matrix, candidate: Matrix) -> float:
    """Share of each question's fp32 top 10 turns the candidate's top 10 keeps."""
    kept = [
        len(set(np.argsort(-reference[:, q])[:10]) & set(np.argsort(-candidate[:, q])[:10]))
        for q in range(reference.shape[1])
    ]
    return float(np.mean(kept) / 10)


def _speed(model: OnnxEmbedder, queries: list[str], texts: list[str]) -> dict[str, float]:
    query = time_query_embedding(model, queries)
    t0 = time.perf_counter()
    model.embed(texts)
    return {
        "query p50 ms": query["p50_ms"],
        "texts/s": len(texts) / (time.perf_counter() - t0),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m cortex_tui.bench.quantisation")
    parser.add_argument("locomo", type=Path, help="LoCoMo's locomo10.json")
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--questions", type=int, default=150)
    options = parser.parse_args(argv)
    for row in compare(options.locomo, options.turns, options.questions):
        print(
            f"{row['mix']:<24} cosine mean {row['cosine mean']:.4f} worst "
            f"{row['cosine worst']:.4f}  top-10 kept {row['top-10 kept']:.3f}  "
            f"query p50 {row['query p50 ms']:.2f} ms  {row['texts/s']:.0f} texts/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
