"""Build the write path's calibration set from the development pairs of the project's
corpus, with the default model's cosine of each pair.

    python tests/data/pairs/write_calibration.py

Writes `cortex_tui/embed/data/write-calibration.json`, which ships with the package:
`write/calibration.py` fits another embedding model's write-path thresholds on these
labelled pairs. Only the development part is used, so the
held-out pairs stay unseen by anything tuned on them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cortex_tui.config import load_settings
from cortex_tui.embed.calibration import CALIBRATION_FILE, pair_cosines
from cortex_tui.embed.factory import make_embedder

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "data" / "pairs" / "write-path-pairs.json"
OUT = ROOT / "cortex_tui" / "embed" / "data" / CALIBRATION_FILE


def build() -> tuple[str, list[list[object]]]:
    """The reference embedder's name, and each development pair with its cosine."""
    settings = load_settings()
    embedder = make_embedder(settings.embedder, settings.models_path)
    pairs = [
        (pair["old"], pair["new"], pair["label"], 0.0)
        for pair in json.loads(CORPUS.read_text())["pairs"]
        if pair["part"] == "dev"
    ]
    cosines = pair_cosines(embedder, pairs)
    rows: list[list[object]] = [
        [old, new, label, round(c, 4)]
        for (old, new, label, _), c in zip(pairs, cosines, strict=True)
    ]
    return embedder.name, rows


def main() -> int:
    reference, rows = build()
    lines = ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)  # a pair a line
    OUT.write_text(f'{{"reference": {json.dumps(reference)},\n"pairs": [\n{lines}\n]}}\n')
    print(f"{len(rows)} pairs, reference {reference} → {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
