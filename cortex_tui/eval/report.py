"""Eval metrics: recall@k, MRR, top-1, forbidden hits, expectations; text and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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
    recall_at: dict[int, float | None]
    reciprocal_rank: float | None
    top1: bool | None
    forbidden_hits: int
    misses: list[Miss] = Field(default_factory=list)


class DatasetReport(BaseModel):
    name: str
    outcomes: list[QueryOutcome]
    expectations_passed: int
    expectations_total: int
    failed_expectations: list[FailedExpectation]
    seconds: float


def _metrics(outcomes: Sequence[QueryOutcome]) -> dict[str, Any]:
    ks = sorted({k for o in outcomes for k in o.recall_at})
    recall_at = {}
    for k in ks:
        values = [v for o in outcomes if (v := o.recall_at.get(k)) is not None]
        recall_at[str(k)] = round(fmean(values), 4) if values else None
    rr = [o.reciprocal_rank for o in outcomes if o.reciprocal_rank is not None]
    firsts = [o.top1 for o in outcomes if o.top1 is not None]
    return {
        "queries": len(outcomes),
        "recall_at": recall_at,
        "mrr": round(fmean(rr), 4) if rr else None,
        "top1": round(sum(firsts) / len(firsts), 4) if firsts else None,
        "forbidden_hits": sum(o.forbidden_hits for o in outcomes),
    }


def to_json(reports: Sequence[DatasetReport]) -> dict[str, Any]:
    everything = [o for r in reports for o in r.outcomes]
    overall = _metrics(everything)
    overall["expectations"] = {
        "passed": sum(r.expectations_passed for r in reports),
        "total": sum(r.expectations_total for r in reports),
    }
    overall["seconds"] = round(sum(r.seconds for r in reports), 3)
    datasets = []
    for r in reports:
        entry = _metrics(r.outcomes)
        entry["name"] = r.name
        entry["expectations"] = {"passed": r.expectations_passed, "total": r.expectations_total}
        entry["seconds"] = round(r.seconds, 3)
        entry["misses"] = [m.model_dump() for o in r.outcomes for m in o.misses]
        entry["failed_expectations"] = [f.model_dump() for f in r.failed_expectations]
        datasets.append(entry)
    return {"overall": overall, "datasets": datasets}


def to_text(reports: Sequence[DatasetReport]) -> str:
    data = to_json(reports)
    lines = []
    for d in data["datasets"]:
        lines.append(_summary_line(d["name"], d))
        for miss in d["misses"]:
            where = f"rank {miss['rank']}" if miss["rank"] else "not ranked"
            lines.append(f"  miss  {miss['label']:<8} {where:<11} {miss['query']!r}: {miss['why']}")
        for f in d["failed_expectations"]:
            lines.append(f"  fail  {f['kind']} {'/'.join(f['labels'])}: {f['why']}")
    lines.append(_summary_line("overall", data["overall"]))
    return "\n".join(lines)


def _summary_line(name: str, m: dict[str, Any]) -> str:
    def fmt(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.3f}"

    recall = " ".join(f"recall@{k} {fmt(v)}" for k, v in m["recall_at"].items())
    e = m["expectations"]
    return (
        f"{name}: {m['queries']} queries  {recall}  MRR {fmt(m['mrr'])}  "
        f"top1 {fmt(m['top1'])}  forbidden {m['forbidden_hits']}  "
        f"expectations {e['passed']}/{e['total']}  {m['seconds']:.1f}s"
    )
