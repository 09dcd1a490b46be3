"""The privacy step over real text where nothing secret was said: how many texts it
changes (each one a false positive that loses a word a memory needed), how many hold a
`<private>` mark (a span left out by design, counted apart), and what it costs per text,
uncached.

Corpora: the demo store always; a LoCoMo file's turns; a folder's notes (the paragraphs
of its markdown, text and Python files: code-heavy writing, settings, ids and digests).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cortex_tui.bench.timing import Timing
from cortex_tui.config import PrivacyConfig
from cortex_tui.demo.loader import build_demo
from cortex_tui.errors import InvalidInputError
from cortex_tui.eval.locomo import is_locomo
from cortex_tui.privacy.redactor import Redactor

NOTE_SUFFIXES = (".md", ".txt", ".py", ".toml", ".yaml", ".yml")
EXAMPLES = 3


def privacy_corpora(paths: list[Path]) -> dict[str, list[str]]:
    """Texts by corpus name: the demo store's memories, then each path's texts."""
    corpora = {"demo": [m.content for m in build_demo()[0]]}
    for path in paths:
        if path.is_dir():
            corpora[f"notes:{path.name}"] = _notes(path)
        elif path.suffix == ".json":
            corpora[f"locomo:{path.name}"] = _locomo_turns(path)
        elif path.is_file():
            corpora[f"notes:{path.name}"] = _paragraphs(path)
        else:
            raise InvalidInputError(f"--privacy {path}: no such file or folder")
    return corpora


def bench_privacy(corpora: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    redactor = Redactor(PrivacyConfig())
    redactor.warm()
    report = {}
    for name, texts in corpora.items():
        timing = Timing()
        changed: list[str] = []
        marked = 0
        for text in texts:
            t0 = time.perf_counter()
            redacted = redactor.redact(text)
            timing.samples.append(time.perf_counter() - t0)
            marked += redacted.private_spans > 0
            if redacted.kinds:
                changed.append(f"{', '.join(redacted.kinds)}: {text[:120]!r}")
        summary = timing.summary() if texts else {}
        report[name] = {
            "texts": len(texts),
            "changed": len(changed),
            "marked_private": marked,
            "mean_chars": round(sum(map(len, texts)) / max(1, len(texts))),
            "p50_us": round(summary.get("p50_ms", 0.0) * 1000, 1),
            "p95_us": round(summary.get("p95_ms", 0.0) * 1000, 1),
            "examples": changed[:EXAMPLES],
        }
    return report


def _locomo_turns(path: Path) -> list[str]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not is_locomo(raw):
        raise InvalidInputError(f"--privacy {path}: not a LoCoMo file (or a folder of notes)")
    turns = []
    for sample in raw:
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [str(turn.get("text", "")) for turn in session if turn.get("text")]
    return turns


def _notes(folder: Path) -> list[str]:
    texts: list[str] = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in NOTE_SUFFIXES and ".git" not in path.parts:
            texts += _paragraphs(path)
    return texts


def _paragraphs(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return [p.strip() for p in text.split("\n\n") if p.strip()]
