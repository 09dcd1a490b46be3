"""The quantisation comparison runs on LoCoMo-format data: every mix is built from the
packaged weights and measured against fp32."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cortex_tui.bench.quantisation import MIXES, PLACES, compare, linear_layers
from cortex_tui.embed.catalogue import packaged_model
from cortex_tui.embed.convert.quantise import dequantise_storage_int8

SYNTHETIC = Path(__file__).resolve().parents[1] / "data" / "locomo" / "synthetic-conversations.json"


def test_the_linear_layers_are_found_six_to_a_block() -> None:
    layers = linear_layers(dequantise_storage_int8(packaged_model().model_path.read_bytes()))
    assert Counter(place for _, place in layers) == dict.fromkeys(PLACES, 6)


def test_each_mix_is_compared_with_fp32() -> None:
    rows = compare(SYNTHETIC, turns=24, questions=6)
    assert [row["mix"] for row in rows] == list(MIXES)
    for row in rows:
        assert 0.9 < float(row["cosine worst"]) <= float(row["cosine mean"]) <= 1.0001
        assert 0.0 <= float(row["top-10 kept"]) <= 1.0
        assert float(row["query p50 ms"]) > 0 and float(row["texts/s"]) > 0
