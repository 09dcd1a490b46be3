"""Figures of a pairs run: accuracy, per-class precision and recall, the confusion matrix.

Reported per part of the dataset (a development part and a held-out part, say) and over
all pairs, so tuning on one part cannot hide what it does to the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cortex_tui.eval.pairs_dataset import LABELS
from cortex_tui.eval.pairs_runner import PairOutcome, PairsRun

ALL = "all"


def _figures(outcomes: Sequence[PairOutcome]) -> dict[str, Any]:
    confusion = {e: dict.fromkeys(LABELS, 0) for e in LABELS}
    for o in outcomes:
        confusion[o.expected][o.decided] += 1
    classes = {}
    for label in LABELS:
        right = confusion[label][label]
        expected = sum(confusion[label].values())
        decided = sum(row[label] for row in confusion.values())
        classes[label] = {
            "support": expected,
            "precision": round(right / decided, 4) if decided else None,
            "recall": round(right / expected, 4) if expected else None,
        }
    correct = sum(confusion[label][label] for label in LABELS)
    return {
        "pairs": len(outcomes),
        "correct": correct,
        "accuracy": round(correct / len(outcomes), 4) if outcomes else None,
        "classes": classes,
        "confusion": confusion,
    }


def pairs_json(run: PairsRun) -> dict[str, Any]:
    parts = list(dict.fromkeys(o.part for o in run.outcomes))
    by_part = {part: _figures([o for o in run.outcomes if o.part == part]) for part in parts}
    if len(parts) > 1:
        by_part[ALL] = _figures(run.outcomes)
    return {
        "dataset": run.dataset,
        "variant": run.variant,
        "parts": by_part,
        "seconds": round(run.seconds, 3),
        "misses": [o.model_dump() for o in run.outcomes if o.expected != o.decided],
    }


def pairs_text(runs: Sequence[PairsRun]) -> str:
    """Per dataset: the base run's table per part, its confusion matrix over all pairs
    and its misses; then one accuracy row per variant when there are several."""
    lines: list[str] = []
    datasets = list(dict.fromkeys(r.dataset for r in runs))
    for name in datasets:
        mine = [pairs_json(r) for r in runs if r.dataset == name]
        base = mine[0]
        if lines:
            lines.append("")
        lines += _part_table(base)
        lines += ["", *_confusion(base)]
        if len(mine) > 1:
            lines += ["", *_variant_rows(mine)]
        if base["misses"]:
            lines += ["", f"misses ({base['variant']}; expected → decided)"]
        for miss in base["misses"]:
            lines.append(
                f"  {miss['id']:<8} {miss['part']:<8} {miss['expected']} → {miss['decided']}"
                f"{': ' + miss['reason'] if miss['reason'] else ''}"
            )
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _part_table(data: dict[str, Any]) -> list[str]:
    head = f"{data['dataset'] + ' (' + data['variant'] + ')':<32} {'pairs':>6} {'accuracy':>9}"
    lines = [head + "".join(f" {label[:13]:>13}" for label in LABELS)]
    lines.append(f"{'':<32} {'':>6} {'':>9}" + "".join(f" {'P / R':>13}" for _ in LABELS))
    for part, figures in data["parts"].items():
        cells = "".join(
            f" {_percent(c['precision']):>6}/{_percent(c['recall']):<6}"
            for c in figures["classes"].values()
        )
        lines.append(
            f"  {part:<30} {figures['pairs']:>6} {_percent(figures['accuracy']):>9}{cells}"
        )
    lines.append("P / R: precision / recall of each class, %")
    return lines


def _confusion(data: dict[str, Any]) -> list[str]:
    overall = data["parts"].get(ALL) or next(iter(data["parts"].values()))
    lines = [f"{'expected ↓ decided →':<22}" + "".join(f" {label[:13]:>13}" for label in LABELS)]
    for expected, row in overall["confusion"].items():
        lines.append(f"  {expected:<20}" + "".join(f" {row[d]:>13}" for d in LABELS))
    return lines


def _variant_rows(runs: list[dict[str, Any]]) -> list[str]:
    parts = list(runs[0]["parts"])
    lines = [f"{'variant':<32}" + "".join(f" {part[:10]:>10}" for part in parts) + "  time"]
    for data in runs:
        cells = "".join(f" {_percent(data['parts'][p]['accuracy']):>10}" for p in parts)
        lines.append(f"  {data['variant']:<30}{cells}  {data['seconds']:.1f} s")
    lines.append("accuracy, % of pairs decided as labelled")
    return lines
