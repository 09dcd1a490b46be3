"""The overview operations through the `Engine` API: map, word cloud, timeline, day, vitals.

A real Edge store and the hashing embedder (fast, deterministic). Whatever the pictures
look like, these say what they must hold: every memory (or a declared sample), the
query's results where recall put them, counts per memory not per mention, the days
things happened on, and each concern with its fix.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import (
    ConflictStatus,
    Entity,
    EntityType,
    Memory,
    MemoryDraft,
    MemoryType,
    Scope,
)
from cortex_tui.overview.reader import Overview
from cortex_tui.recall.request import RecallRequest
from tests.conftest import NOW, make_engine, spool_waiting_turn
from tests.hooks.test_hooks import hook

TOPICS = [
    "Atlas stores invoices in PostgreSQL 16 with nightly backups",
    "The harbor service deploys through GitHub Actions on every merge",
    "Kafka consumers in lighthouse alert on lag above five minutes",
    "Frontend builds use Vite and pnpm workspaces",
    "Vault holds the production secrets under kv/prod",
    "Release freeze runs from the 20th of December to the 3rd of January",
]


def _fill(engine: LocalEngine, count: int = 24) -> list[Memory]:
    memories = []
    for number in range(count):
        text = f"{TOPICS[number % len(TOPICS)]} (note {number})"
        created = NOW - timedelta(days=number % 10, hours=1)
        memories.append(
            Memory(
                content=text,
                type=list(MemoryType)[number % 5],
                scope=Scope.PROJECT,
                project=("atlas", "harbor")[number % 2],
                tags=["ops"] if number % 3 == 0 else [],
                created_at=created,
                updated_at=created,
                valid_from=created,
                source="hook" if number % 4 == 0 else "remember",
            )
        )
    engine.insert(memories)
    return memories


def test_the_map_draws_every_current_memory_and_keeps_its_axes(engine: LocalEngine) -> None:
    stored = _fill(engine)
    first = engine.overview.memory_map()
    assert first.total == len(stored) and sorted(first.ids) == sorted(m.id for m in stored)
    assert len(first.x) == len(first.y) == len(first.types) == len(first.ids)
    assert first.fitted_on == len(stored) and 0 < first.explained[0] <= 1
    assert first.clusters and sum(c.size for c in first.clusters) == len(stored)
    where = dict(zip(first.ids, zip(first.x, first.y, strict=True), strict=True))

    # One more memory: it is placed on the same axes; the others do not move.
    added = engine.remember(MemoryDraft(content="Grafana dashboards live in the ops repo"))
    second = engine.overview.memory_map()
    assert second.total == len(stored) + 1 and added.memory.id in second.ids
    again = dict(zip(second.ids, zip(second.x, second.y, strict=True), strict=True))
    assert all(again[memory_id] == point for memory_id, point in where.items())
    assert second.fitted_on == len(stored)

    # Refitting takes every point drawn into the axes.
    assert engine.overview.memory_map(refit=True).fitted_on == len(stored) + 1


def test_superseded_versions_are_drawn_only_when_asked(engine: LocalEngine) -> None:
    _fill(engine, 8)
    old = engine.remember(MemoryDraft(content="The API listens on port 8443")).memory
    new = engine.update(old.id, content="The API listens on port 9000")
    hidden = engine.overview.memory_map()
    assert old.id not in hidden.ids and new.id in hidden.ids
    shown = engine.overview.memory_map(superseded=True)
    assert old.id in shown.ids
    assert shown.superseded[shown.ids.index(old.id)] is True
    assert shown.superseded[shown.ids.index(new.id)] is False


def test_a_query_is_placed_with_its_results_in_recall_order(engine: LocalEngine) -> None:
    _fill(engine)
    query = "where are the production secrets"
    placed = engine.overview.memory_map(query=query, top_k=5)
    ranked = engine.recall(RecallRequest(query=query, limit=5, update_access=False))
    assert [hit.id for hit in placed.hits] == [r.memory.id for r in ranked.results]
    assert [hit.rank for hit in placed.hits] == [1, 2, 3, 4, 5]
    assert placed.query == query and placed.query_x is not None
    # A result that is drawn sits exactly where the map draws it.
    for hit in placed.hits:
        index = placed.ids.index(hit.id)
        assert (round(hit.x, 5), round(hit.y, 5)) == (placed.x[index], placed.y[index])
    # Recall through the map counts no access (it is a look, not a use).
    assert all(engine.get(hit.id).access_count == 0 for hit in placed.hits)


def test_above_the_sample_size_a_fixed_sample_is_drawn_and_said(
    engine: LocalEngine, hashing_embedder: Embedder
) -> None:
    stored = _fill(engine, 30)
    overview = Overview(engine.store, hashing_embedder, engine.now)
    drawn = overview.memory_map(engine.recall, sample_size=12)
    assert drawn.total == 30 and len(drawn.ids) == 12 and drawn.sampled
    assert drawn.ids == sorted(m.id for m in stored)[:12]  # the smallest ids: UUID4s are random
    words = overview.word_cloud(sample_size=12)
    assert (words.memories, words.counted) == (30, 12)


def test_the_same_store_gives_the_same_map(tmp_path: Path, hashing_embedder: Embedder) -> None:
    maps = []
    for name in ("one", "two"):
        engine = make_engine(tmp_path / name, hashing_embedder)
        try:
            for text in TOPICS * 3:
                engine.remember(MemoryDraft(content=text, project=name))
            found = engine.overview.memory_map()
            maps.append(sorted(zip(found.types, found.x, found.y, strict=True)))
        finally:
            engine.close()
    assert maps[0] == maps[1]


def test_words_count_memories_not_mentions_and_merge_entities_tags_and_words(
    engine: LocalEngine,
) -> None:
    for number in range(4):
        engine.remember(
            MemoryDraft(
                content=f"Kafka kafka KAFKA lag alert number {number}, see "
                "`kubectl logs` and https://example.com/runbook <b>now</b>",
                tags=["kafka"],
                project="lighthouse",
            )
        )
    engine.remember(MemoryDraft(content="The atlas API is written in FastAPI", project="atlas"))
    cloud = engine.overview.word_cloud()
    counts = {term.term.casefold(): term for term in cloud.terms}
    assert counts["kafka"].count == 4 and counts["kafka"].kind == "tag"
    assert [t.term.casefold() for t in cloud.terms].count("kafka") == 1
    for dropped in ("the", "see", "kubectl", "logs", "https", "example", "b", "now", "is"):
        assert dropped not in counts, dropped
    assert counts["alert"].count == 4
    only_atlas = engine.overview.word_cloud(project="atlas")
    assert only_atlas.memories == 1 and "kafka" not in {t.term for t in only_atlas.terms}
    assert engine.overview.word_cloud(type=MemoryType.RULE).memories == 0


def test_an_entity_counts_as_one_phrase(engine: LocalEngine) -> None:
    entity = Entity(name="GitHub Actions", type=EntityType.SYSTEM, created_at=NOW)
    drafts = [f"GitHub Actions runs the release job {n}" for n in range(3)]
    ids = [engine.remember(MemoryDraft(content=text)).memory.id for text in drafts]
    engine.store.upsert_entities(
        [entity.model_copy(update={"memory_ids": ids})], [engine.embedder.embed_query("gh")]
    )
    stored = engine.store.get_memories(ids)
    engine.store.update_memories([m.model_copy(update={"entity_ids": [entity.id]}) for m in stored])
    terms = {term.term: term for term in engine.overview.word_cloud().terms}
    assert terms["GitHub Actions"].count == 3 and terms["GitHub Actions"].kind == "entity"
    assert "github" not in {t.casefold() for t in terms if t != "GitHub Actions"}


def test_the_timeline_counts_created_superseded_and_captured_per_day(
    engine: LocalEngine,
) -> None:
    stored = _fill(engine)
    old = engine.remember(MemoryDraft(content="The API listens on port 8443")).memory
    engine.update(old.id, content="The API listens on port 9000")
    timeline = engine.overview.timeline(14)
    assert len(timeline.days) == 14 and timeline.days[-1].day == NOW.date().isoformat()
    by_day = {day.day: day for day in timeline.days}
    for offset in range(10):
        day = (NOW - timedelta(days=offset, hours=1)).date().isoformat()
        made = [m for m in stored if m.created_at.date().isoformat() == day]
        expected_created = len(made) + (2 if offset == 0 else 0)
        assert by_day[day].created == expected_created, day
        assert by_day[day].captured == sum(m.source == "hook" for m in made), day
    assert by_day[NOW.date().isoformat()].superseded == 1
    assert sum(day.created for day in timeline.days) == len(stored) + 2
    today = engine.overview.day(NOW.date())
    assert old.id in [m.id for m in today.superseded]
    assert {m.content for m in today.created} >= {"The API listens on port 9000"}
    quiet = engine.overview.day(NOW.date() - timedelta(days=40))
    assert quiet.created == [] and quiet.superseded == []


def test_forgotten_memories_leave_the_views(engine: LocalEngine) -> None:
    stored = _fill(engine, 6)
    before = engine.overview.timeline(30)
    engine.forget(stored[0].id)
    assert stored[0].id not in engine.overview.memory_map().ids
    after = engine.overview.timeline(30)
    assert sum(d.created for d in after.days) == sum(d.created for d in before.days) - 1


def test_vitals_read_the_spool_the_hook_log_and_the_last_capture(
    engine: LocalEngine,
) -> None:
    stored = _fill(engine)
    home = engine.settings.home
    calm = engine.upkeep.vitals()
    assert calm.memories == len(stored) and calm.spool_pending == 0 and calm.spool_ok
    assert calm.last_capture == max(m.created_at for m in stored if m.source == "hook")
    assert calm.llm == "none" and calm.store_bytes > 0 and calm.concerns == []

    logs = home / "logs"
    logs.mkdir(exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    stale = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - 3 * 86400))
    lines = [
        f"{stamp},000 INFO pre hook (service) done in {ms} ms (0 chars out)"
        for ms in (20, 30, 40, 50, 900)
    ]
    lines.append(f"{stamp},000 WARNING pre hook (service) failed after 1500 ms: HookTimeout: x")
    lines.append(f"{stale},000 WARNING post hook (service) failed after 1 ms: Old: y")
    lines.append("a torn line")
    (logs / "hooks.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spool_waiting_turn(home, 3600)
    worried = engine.upkeep.vitals()
    pre, post = worried.hooks
    assert (pre.runs, pre.failures, pre.p50_ms) == (6, 1, 40.0)
    assert pre.p95_ms == 900.0 and "HookTimeout" in (pre.last_failure or "")
    assert (post.runs, post.failures) == (0, 0)  # older than a day
    assert worried.spool_pending == 1 and not worried.spool_ok
    assert worried.spool_oldest_s is not None and worried.spool_oldest_s >= 3590
    found = " | ".join(concern.found for concern in worried.concerns)
    assert "1 of 6 pre hooks failed" in found and "captures waiting" in found
    assert all(concern.fix for concern in worried.concerns)
    assert "900 ms at p95" in found  # over half the 1.5 s pre hook limit
    json.loads(worried.model_dump_json())


def test_conflicted_memories_are_marked_on_the_map(engine: LocalEngine) -> None:
    _fill(engine, 6)
    a = engine.remember(MemoryDraft(content="Priya leads the platform team")).memory
    engine.store.update_memories(
        [a.model_copy(update={"conflict_status": ConflictStatus.ACTIVE, "conflict_group_id": "g"})]
    )
    drawn = engine.overview.memory_map()
    assert drawn.conflicted[drawn.ids.index(a.id)] is True
    assert sum(drawn.conflicted) == 1


def test_the_health_figures_read_what_real_hooks_log(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    """The log's wording is the hook's own: a real hook process writes it."""
    home = tmp_path / "home"
    home.mkdir()
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "which port?"})
    for _ in range(3):
        assert hook(home, "pre", prompt).returncode == 0
    engine = make_engine(home, hashing_embedder)
    try:
        pre, post = engine.upkeep.vitals().hooks
    finally:
        engine.close()
    assert (pre.runs, pre.failures, post.runs) == (3, 0, 0)
    assert pre.p50_ms is not None and pre.p50_ms > 0


def test_rotated_hook_logs_are_read_back_to_the_day_they_cover(engine: LocalEngine) -> None:
    logs = engine.settings.home / "logs"
    logs.mkdir(exist_ok=True)

    def line(hours_ago: float, ms: int) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - hours_ago * 3600))
        return f"{stamp},000 INFO pre hook (service) done in {ms} ms (0 chars out)\n"

    (logs / "hooks.log.2").write_text(line(50, 1) + line(30, 2), encoding="utf-8")
    (logs / "hooks.log.1").write_text(line(20, 10) + line(10, 20), encoding="utf-8")
    (logs / "hooks.log").write_text(line(1, 30), encoding="utf-8")
    pre, _ = engine.upkeep.vitals().hooks
    assert (pre.runs, pre.p50_ms) == (3, 20.0)  # the day's three; none from the days before
