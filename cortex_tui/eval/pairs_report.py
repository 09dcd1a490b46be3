"""Figures of a pairs run: accuracy, per-class precision and recall, the confusion matrix.

Reported per part of the dataset (a development part and a held-out part, say) and over
all pairs, so tuning on one part cannot hide what it does to the other; and for the
close calls (`write/judge/ambiguity.py`): how many pairs the band holds, how many of the
errors fall inside it, and who decided them (the rules, a pair model, an LLM).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from cortex_tui.eval.pairs_runner import PairOutcome, PairsRun
from cortex_tui.models import FOLDED_LABELS, WRITE_LABELS

ALL = "all"


def _figures(outcomes: Sequence[PairOutcome]) -> dict[str, Any]:
    confusion = {e: dict.fromkeys(WRITE_LABELS, 0) for e in WRITE_LABELS}
    for o in outcomes:
        confusion[o.expected][o.decided] += 1
    classes = {}
    for label in WRITE_LABELS:
        right = confusion[label][label]
        expected = sum(confusion[label].values())
        decided = sum(row[label] for row in confusion.values())
        classes[label] = {
            "support": expected,
            "precision": round(right / decided, 4) if decided else None,
            "recall": round(right / expected, 4) if expected else None,
        }
    correct = sum(confusion[label][label] for label in WRITE_LABELS)
    return {
        "pairs": len(outcomes),
        "correct": correct,
        "folds": sum(
            o.decided in FOLDED_LABELS and o.expected not in FOLDED_LABELS for o in outcomes
        ),
        "accuracy": round(correct / len(outcomes), 4) if outcomes else None,
        "classes": classes,
        "confusion": confusion,
    }


def _close_calls(outcomes: Sequence[PairOutcome]) -> dict[str, Any]:
    close = [o for o in outcomes if o.close_call]
    right = sum(o.expected == o.decided for o in close)
    return {
        "pairs": len(close),
        "share": round(len(close) / len(outcomes), 4) if outcomes else None,
        "accuracy": round(right / len(close), 4) if close else None,
        "errors_inside": len(close) - right,
        "errors": sum(o.expected != o.decided for o in outcomes),
        "judges": dict(Counter(o.judge for o in close)),
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
        "close_calls": _close_calls(run.outcomes),
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
        lines.append(_close_line(base["close_calls"]))
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
    name = data["dataset"] + " (" + data["variant"] + ")"
    head = f"{name:<32} {'pairs':>6} {'accuracy':>9} {'folds':>6}"
    lines = [head + "".join(f" {label[:13]:>13}" for label in WRITE_LABELS)]
    lines.append(
        f"{'':<32} {'':>6} {'':>9} {'':>6}" + "".join(f" {'P / R':>13}" for _ in WRITE_LABELS)
    )
    for part, figures in data["parts"].items():
        cells = "".join(
            f" {_percent(c['precision']):>6}/{_percent(c['recall']):<6}"
            for c in figures["classes"].values()
        )
        lines.append(
            f"  {part:<30} {figures['pairs']:>6} {_percent(figures['accuracy']):>9}"
            f" {figures['folds']:>6}{cells}"
        )
    lines.append(
        "folds: pairs of different claims (labelled update, contradiction or new) folded "
        "into one memory; P / R: precision / recall of each class, %"
    )
    return lines


def _confusion(data: dict[str, Any]) -> list[str]:
    overall = data["parts"].get(ALL) or next(iter(data["parts"].values()))
    lines = [
        f"{'expected ↓ decided →':<22}" + "".join(f" {label[:13]:>13}" for label in WRITE_LABELS)
    ]
    for expected, row in overall["confusion"].items():
        lines.append(f"  {expected:<20}" + "".join(f" {row[d]:>13}" for d in WRITE_LABELS))
    return lines


def _close_line(close: dict[str, Any]) -> str:
    return (
        f"close calls: {close['pairs']} pairs ({_percent(close['share'])} %), holding "
        f"{close['errors_inside']} of the {close['errors']} errors; "
        f"{_percent(close['accuracy'])} % right inside"
    )


def _variant_rows(runs: list[dict[str, Any]]) -> list[str]:
    """Per variant: accuracy per part, then per class over all pairs (each class's
    recall: the share of its pairs decided as labelled), and inside the close calls."""
    parts = list(runs[0]["parts"])
    head = f"{'variant':<32}" + "".join(f" {part[:10]:>10}" for part in parts)
    head += "".join(f" {label[:11]:>11}" for label in WRITE_LABELS) + f" {'close calls':>12}  time"
    lines = [head]
    for data in runs:
        overall = data["parts"].get(ALL) or next(iter(data["parts"].values()))
        cells = "".join(f" {_percent(data['parts'][p]['accuracy']):>10}" for p in parts)
        cells += "".join(f" {_percent(c['recall']):>11}" for c in overall["classes"].values())
        cells += f" {_percent(data['close_calls']['accuracy']):>12}"
        lines.append(f"  {data['variant']:<30}{cells}  {data['seconds']:.1f} s")
    lines.append(
        "accuracy, % of pairs decided as labelled: per part, per class (over all parts) "
        "and inside the close calls"
    )
    if any(data["variant"].endswith("-replay") for data in runs):
        lines.append(
            "llm-*-replay: the LLM's answers are replayed over a mock transport, not a model's: "
            "oracle answers each close call with its label (the ceiling), contrary with a "
            "wrong one (the floor)"
        )
    return lines
