"""Deterministic synthetic memories of a software team, for benchmarks at any size."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from cortex_tui.models import Memory, MemoryType, Scope

_SUBJECTS = [
    "the atlas API",
    "the harbor pipeline",
    "the lighthouse alerting service",
    "the quay CLI",
    "the staging cluster",
    "the Postgres primary",
    "the Kafka consumer",
    "the nightly backfill",
    "the release workflow",
    "the auth middleware",
    "the billing export",
    "the search index",
    "the metrics exporter",
    "the frontend build",
    "the feature-flag service",
    "the CI runners",
]
_VERBS = [
    "must be deployed with",
    "now depends on",
    "was migrated to",
    "is configured through",
    "fails without",
    "reads its settings from",
    "is owned by",
    "should be restarted after",
    "was rolled back because of",
    "times out when",
    "is monitored by",
    "writes its logs to",
]
_OBJECTS = [
    "Terraform modules in infra/",
    "the Vault secret path kv/team",
    "GitHub Actions on ubuntu-24",
    "a 30 second connection timeout",
    "Priya's review",
    "the blue-green switch",
    "Parquet partitions in the lake bucket",
    "the PGBOUNCER_POOL_SIZE setting",
    "Prometheus scraping every 15s",
    "a schema change approved by the tech lead",
    "uv sync and make db",
    "the events.raw topic",
    "Sentry release tracking",
    "the on-call runbook",
    "rate limits of 600 requests per minute",
    "Kubernetes HPA at 70% CPU",
]
_TAILS = [
    "",
    " since the March incident.",
    " (see the postmortem).",
    " — do not change it on Fridays.",
    " according to Tomás.",
    " after the Postgres 16 upgrade.",
    " in every environment.",
    " unless the flag is off.",
]


def synthetic_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} "
        f"{rng.choice(_OBJECTS)}{rng.choice(_TAILS)}"
        for _ in range(count)
    ]


def distinct_statements(count: int, seed: int) -> list[str]:
    """Statements that share no phrasing (six made-up words each), so the write path
    stores every one as new: what a benchmark of "saved → recallable" needs, where a
    statement folded into a similar one would never come back as written."""
    rng = random.Random(seed)
    words = [f"{a}{b}" for a in "bcdfghklmnprstvz" for b in ("ar", "el", "ix", "on", "um", "ost")]
    return [f"Item {i}: " + " ".join(rng.sample(words, 6)) + "." for i in range(count)]


def synthetic_memory(
    text: str, rng: random.Random, now: datetime, projects: Sequence[str | None], **session: Any
) -> Memory:
    """A memory of `text` as a store in use holds it: made in the last 300 days, in one of
    `projects` (None: global), of any type, with two tags and some accesses, so ranking
    has every signal to weigh; `session` (session_id, turn, speaker) places it in a
    conversation. The same `rng` state gives the same memory."""
    created = now - timedelta(hours=rng.uniform(1, 24 * 300))
    project = rng.choice(projects)
    return Memory(
        content=text,
        type=rng.choice(list(MemoryType)),
        scope=Scope.PROJECT if project else Scope.PERMANENT,
        project=project,
        tags=rng.sample(["ops", "db", "ci", "review", "frontend", "infra"], k=2),
        created_at=created,
        updated_at=created,
        valid_from=created,
        access_count=rng.randint(0, 20),
        **session,
    )


def synthetic_parts(
    base_vectors: np.ndarray[Any, np.dtype[np.float32]], noise: np.random.Generator, count: int
) -> np.ndarray[Any, np.dtype[np.float32]]:
    picked = base_vectors[noise.integers(0, len(base_vectors), count)]
    rows = picked + noise.normal(0, 0.02, picked.shape)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return rows.astype(np.float32)
