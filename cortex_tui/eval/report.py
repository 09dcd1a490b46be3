"""Eval figures: recall@k (the share of a query's relevant memories found), all-found@k,
MRR, top-1, forbidden hits, expectations, per category and per variant; as JSON and as
text tables.

Figures are means over queries (never means of dataset means). Queries of a category a
dataset reports apart (LoCoMo's adversarial ones) are left out of the overall and
per-dataset figures and shown in the per-category breakdown only.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DATASET_ROWS = 20
"""More datasets than this are summed up in one line of the text report."""


class Miss(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str
    label: str
    rank: int | None
    why: str


class FailedExpectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    labels: list[str]
    why: str


class QueryOutcome(BaseModel):
    category: str | None = None
    recall_at: dict[int, float | None]
    complete_at: dict[int, bool | None] = Field(
        default_factory=dict, description="k → every relevant memory is in the top k"
    )
    reciprocal_rank: float | None
    top1: bool | None
    forbidden_hits: int
    misses: list[Miss] = Field(default_factory=list)


class DatasetRun(BaseModel):
    """One dataset, ingested once and ranked by every variant."""

    name: str
    memories: int
    apart: list[str]
    notes: list[str]
    ingest_seconds: float
    embedding_seconds: float
    expectations_passed: int
    expectations_total: int
    failed_expectations: list[FailedExpectation]
    outcomes: dict[str, list[QueryOutcome]] = Field(description="variant name → one per query")
    variant_seconds: dict[str, float]

    def counted(self, variant: str) -> list[QueryOutcome]:
        """The outcomes that count towards overall figures (not a category kept apart)."""
        return [o for o in self.outcomes[variant] if o.category not in self.apart]


class VariantInfo(BaseModel):
    name: str
    changes: dict[str, str]


class EvalRun(BaseModel):
    variants: list[VariantInfo]
    datasets: list[DatasetRun]
    seconds: float

    @property
    def base(self) -> str:
        return self.variants[0].name


def _metrics(outcomes: Sequence[QueryOutcome]) -> dict[str, Any]:
    ks = sorted({k for o in outcomes for k in o.recall_at})
    recall_at = {}
    for k in ks:
        values = [v for o in outcomes if (v := o.recall_at.get(k)) is not None]
        recall_at[str(k)] = round(fmean(values), 4) if values else None
    complete_at = {}
    for k in ks:
        whole = [v for o in outcomes if (v := o.complete_at.get(k)) is not None]
        complete_at[str(k)] = round(sum(whole) / len(whole), 4) if whole else None
    rr = [o.reciprocal_rank for o in outcomes if o.reciprocal_rank is not None]
    firsts = [o.top1 for o in outcomes if o.top1 is not None]
    return {
        "queries": len(outcomes),
        "recall_at": recall_at,
        "complete_at": complete_at,
        "mrr": round(fmean(rr), 4) if rr else None,
        "top1": round(sum(firsts) / len(firsts), 4) if firsts else None,
        "forbidden_hits": sum(o.forbidden_hits for o in outcomes),
    }


def _by_category(run: EvalRun, variant: str) -> dict[str, dict[str, Any]]:
    """Metrics per category, alphabetical, the categories kept apart last."""
    apart = {c for d in run.datasets for c in d.apart}
    groups: dict[str, list[QueryOutcome]] = {}
    for d in run.datasets:
        for o in d.outcomes[variant]:
            if o.category is not None:
                groups.setdefault(o.category, []).append(o)
    order = sorted(groups, key=lambda c: (c in apart, c))
    return {c: {**_metrics(groups[c]), "apart": c in apart} for c in order}


def _variant(run: EvalRun, info: VariantInfo) -> dict[str, Any]:
    name = info.name
    overall = _metrics([o for d in run.datasets for o in d.counted(name)])
    return {
        "name": name,
        "changes": info.changes,
        "overall": overall,
        "by_category": _by_category(run, name),
        "seconds": round(sum(d.variant_seconds[name] for d in run.datasets), 3),
        "datasets": [
            {
                "name": d.name,
                **_metrics(d.counted(name)),
                "misses": [m.model_dump() for o in d.outcomes[name] for m in o.misses],
            }
            for d in run.datasets
        ],
    }


def to_json(run: EvalRun) -> dict[str, Any]:
    """The base run at the top level (as before variants existed), every variant under
    `variants`, timings under `timing`."""
    variants = [_variant(run, info) for info in run.variants]
    base = variants[0]
    expectations = {
        "passed": sum(d.expectations_passed for d in run.datasets),
        "total": sum(d.expectations_total for d in run.datasets),
    }
    datasets = []
    for d, figures in zip(run.datasets, base["datasets"], strict=True):
        datasets.append(
            {
                **figures,
                "memories": d.memories,
                "expectations": {"passed": d.expectations_passed, "total": d.expectations_total},
                "seconds": round(
                    d.ingest_seconds + d.embedding_seconds + d.variant_seconds[run.base], 3
                ),
                "ingest_seconds": round(d.ingest_seconds, 3),
                "embedding_seconds": round(d.embedding_seconds, 3),
                "failed_expectations": [f.model_dump() for f in d.failed_expectations],
                "notes": d.notes,
            }
        )
    return {
        "overall": {
            **base["overall"],
            "expectations": expectations,
            "seconds": round(run.seconds, 3),
        },
        "by_category": base["by_category"],
        "apart": [c for c, figures in base["by_category"].items() if figures["apart"]],
        "datasets": datasets,
        "variants": variants,
        "timing": {
            "ingest_seconds": round(sum(d.ingest_seconds for d in run.datasets), 3),
            "embedding_seconds": round(sum(d.embedding_seconds for d in run.datasets), 3),
            "variant_seconds": {v["name"]: v["seconds"] for v in variants},
            "total_seconds": round(run.seconds, 3),
        },
        "notes": [note for d in run.datasets for note in d.notes],
    }


def to_text(run: EvalRun, by_category: bool = False) -> str:
    """Tables: datasets (base figures), variants, categories (always for a single run,
    else with `by_category`), then misses and failed expectations."""
    data = to_json(run)
    ks = list(data["overall"]["recall_at"])
    lines = _dataset_table(data, ks)
    lines += [f"note: {note}" for note in data["notes"]]
    lines += ["", *_variant_table(data["variants"], ks)]
    lines.append("R@k: % of a query's relevant memories ranked in the top k, mean over queries")
    lines.append("A@k: % of queries with all their relevant memories in the top k")
    if data["apart"]:
        apart = ", ".join(
            f"{c} ({data['by_category'][c]['queries']} queries)" for c in data["apart"]
        )
        lines.append(f"kept apart from these figures: {apart}")
    lines += _variant_legend(data["variants"])
    if by_category or len(data["variants"]) == 1:
        for variant in data["variants"]:
            if variant["by_category"]:
                lines += ["", *_category_table(variant, ks)]
    for variant in data["variants"]:
        misses = [(d["name"], m) for d in variant["datasets"] for m in d["misses"]]
        if misses:
            lines += ["", f"misses ({variant['name']})"]
        for name, miss in misses:
            where = f"rank {miss['rank']}" if miss["rank"] else "not ranked"
            lines.append(
                f"  {name}  {miss['label']:<8} {where:<11} {miss['query']!r}: {miss['why']}"
            )
    failed = [(d["name"], f) for d in data["datasets"] for f in d["failed_expectations"]]
    if failed:
        lines += ["", "failed expectations"]
    for name, f in failed:
        lines.append(f"  {name}  {f['kind']} {'/'.join(f['labels'])}: {f['why']}")
    lines += ["", _timing_line(data["timing"])]
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _recall_cells(figures: dict[str, Any], ks: list[str], complete: bool = False) -> str:
    cells = "".join(f"{_percent(figures['recall_at'].get(k)):>7}" for k in ks)
    if complete:
        cells += "".join(f"{_percent(figures['complete_at'].get(k)):>7}" for k in ks)
    return cells


def _recall_head(ks: list[str], complete: bool = False) -> str:
    return "".join(f"{'R@' + k:>7}" for k in ks) + (
        "".join(f"{'A@' + k:>7}" for k in ks) if complete else ""
    )


def _dataset_table(data: dict[str, Any], ks: list[str]) -> list[str]:
    """A row per dataset; a line for them all when there are more than `DATASET_ROWS`
    (LongMemEval's one dataset per question: the rows would bury the summary)."""
    datasets = data["datasets"]
    if len(datasets) > DATASET_ROWS:
        return [
            f"{len(datasets)} datasets, {sum(d['memories'] for d in datasets)} memories, "
            f"{sum(d['queries'] for d in datasets)} queries (each dataset's figures: --json)"
        ]
    width = max(12, *(len(d["name"]) for d in data["datasets"]))
    head = (
        f"{'dataset':<{width}} {'memories':>8} {'queries':>8}{_recall_head(ks)} {'MRR':>6}"
        f" {'expect':>7} {'ingest':>8} {'embedding':>10}"
    )
    lines = [head]
    for d in data["datasets"]:
        e = d["expectations"]
        expect = f"{e['passed']}/{e['total']}" if e["total"] else "-"
        lines.append(
            f"{d['name']:<{width}} {d['memories']:>8} {d['queries']:>8}{_recall_cells(d, ks)}"
            f" {_fraction(d['mrr']):>6} {expect:>7} {d['ingest_seconds']:>6.1f} s"
            f" {d['embedding_seconds']:>8.1f} s"
        )
    return lines


def _variant_table(variants: list[dict[str, Any]], ks: list[str]) -> list[str]:
    width = max(12, *(len(v["name"]) for v in variants))
    lines = [
        f"{'variant':<{width}} {'queries':>8}{_recall_head(ks, True)} {'MRR':>6} {'top-1':>6}"
        f" {'forbidden':>9} {'time':>8}"
    ]
    for v in variants:
        o = v["overall"]
        lines.append(
            f"{v['name']:<{width}} {o['queries']:>8}{_recall_cells(o, ks, True)}"
            f" {_fraction(o['mrr']):>6}"
            f" {_fraction(o['top1']):>6} {o['forbidden_hits']:>9} {v['seconds']:>6.1f} s"
        )
    return lines


def _variant_legend(variants: list[dict[str, Any]]) -> list[str]:
    """What each row changed: the base its `--set`s, a variant what it changed on top."""
    lines = []
    for v in variants:
        changes = ", ".join(f"{k}={value}" for k, value in v["changes"].items())
        if changes or v is not variants[0]:
            lines.append(f"{v['name']}: {changes or 'as base'}")
    return lines


def _category_table(variant: dict[str, Any], ks: list[str]) -> list[str]:
    categories = variant["by_category"]
    width = max(20, *(len(c) + 10 for c in categories))
    lines = [
        f"{variant['name'] + ' by category':<{width}} {'queries':>8}{_recall_head(ks, True)}"
        f" {'MRR':>6}"
    ]
    for name, figures in categories.items():
        label = f"  {name}" + (" (apart)" if figures["apart"] else "")
        lines.append(
            f"{label:<{width}} {figures['queries']:>8}{_recall_cells(figures, ks, True)}"
            f" {_fraction(figures['mrr']):>6}"
        )
    return lines


def _timing_line(timing: dict[str, Any]) -> str:
    variants = ", ".join(f"{name} {s:.1f} s" for name, s in timing["variant_seconds"].items())
    return (
        f"time: ingest {timing['ingest_seconds']:.1f} s, embedding "
        f"{timing['embedding_seconds']:.1f} s, queries: {variants}; "
        f"total {timing['total_seconds']:.1f} s"
    )
