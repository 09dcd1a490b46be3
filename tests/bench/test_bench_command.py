"""`cortex-tui bench` as a user runs it, on small sizes: every row it reports is there and
measured (the figures themselves go to docs/measurements.md, never into assertions)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Cli


def test_bench_reports_embedding_ingest_recall_and_backup_per_size(cli: Cli) -> None:
    run = cli(
        "bench", "--json", "--sizes", "300", "--queries", "5", "--hook-runs", "0",
        "--import-count", "40", "--remember-count", "12", "--embedder", "onnx",
        "--sync-lines", "0", "--sync-saves", "0",
        "--load-sessions", "0", "--views", "200", "--first-frame-runs", "1",
        "--cold-runs", "0",
    )  # fmt: skip
    assert run.code == 0, run.err
    report = json.loads(run.out)
    assert report["embedder"].startswith("onnx:all-MiniLM-L6-v2@int8:")
    assert report["query_embedding"]["p50_ms"] > 0
    imported = report["import"]
    assert imported["memories"] == 40 and imported["per_second"] > 0
    assert imported["embedding_texts_per_second"] > 0
    assert report["remember"]["runs"] == report["remember"]["memories"] == 12
    assert report["remember"]["p95_ms"] >= report["remember"]["p50_ms"] > 0
    (store,) = report["stores"]
    assert store["memories"] == 300
    assert store["as_written"]["recall"]["p50_ms"] > 0
    assert store["after_optimize"]["recall"]["p50_ms"] > 0
    assert store["backup_seconds"] > 0 and store["backup_megabytes"] > 0
    assert store["restore_seconds"] > 0
    assert "sync" not in report and "load" not in report  # 0 lines, saves, sessions: skipped
    assert "cold_start" not in report
    (views,) = report["views"]
    assert views["memories"] == 200
    for pane in ("map", "words", "timeline", "health"):
        assert views[pane]["first_ms"] > 0 and views[pane]["again_ms"] > 0
    for start in ("demo", "empty_store_no_service"):
        timed = report["first_frame"][start]
        assert timed["ready_median_s"] > timed["first_frame_median_s"] > 0


def test_bench_times_hooks_sync_watch_and_sessions_through_a_real_service(cli: Cli) -> None:
    run = cli(
        "bench", "--json", "--sizes", "20", "--queries", "2", "--hook-runs", "2",
        "--import-count", "5", "--remember-count", "3", "--embedder", "hashing",
        "--sync-lines", "80",
        "--sync-saves", "3", "--load-sessions", "2", "--load-turns", "1",
        "--load-think-ms", "10", "--views", "", "--first-frame-runs", "0",
        "--cold-runs", "1",
        env={"CORTEX_LIMITS__CONTENT_CHARS": "2000", "CORTEX_LIMITS__CAPTURE_CHARS": "4000"},
    )  # fmt: skip
    assert run.code == 0, run.err
    report = json.loads(run.out)
    hooks = report["hooks"]
    for measured in ("interpreter_start", "pre_hook_process", "post_hook_process"):
        assert hooks[measured]["runs"] == hooks[f"{measured}_cpu"]["runs"] == 2
        assert hooks[f"{measured}_cpu"]["p50_ms"] > 0
    assert hooks["pre_hook_process"]["p50_ms"] > 0 and hooks["pre_service_call"]["runs"] == 2
    ratio = hooks["pre_hook_process"]["p50_ms"] / hooks["interpreter_start"]["p50_ms"]
    assert hooks["pre_hook_to_interpreter"] == round(ratio, 2)
    assert "first_frame" not in report
    cold = report["cold_start"]
    assert cold["service_spawn_to_first_answer"]["runs"] == 1
    for quiet_or_busy in ("cold_pre_hook", "cold_pre_hook_busy"):
        assert cold[quiet_or_busy]["runs"] == 1 and cold[quiet_or_busy]["p50_ms"] > 0
        assert cold[quiet_or_busy]["with_memories"] == 1
    synced = report["sync"]
    assert synced["import"]["lines"] == synced["import"]["statements"] == 80
    assert synced["import"]["lines_per_second"] > 0
    assert synced["import"]["unchanged_pass_spooled"] == 0
    assert synced["watch"]["save_to_recallable"]["runs"] == 3
    assert synced["watch"]["save_to_recallable"]["p50_ms"] > 0

    load = report["load"]
    assert (load["sessions"], load["turns_per_session"], load["think_seconds"]) == (2, 1, 0.01)
    assert load["capture_alone"]["turns_per_second"] > 0
    assert load["pre_hook"]["runs"] == load["post_hook"]["runs"] == 2
    assert load["pre_hook"]["p99_ms"] >= load["pre_hook"]["p50_ms"] > 0
    assert (load["facts"], load["facts_recalled"], load["facts_lost"], load["facts_doubled"]) == (
        2, 2, 0, 0,
    )  # fmt: skip
    assert load["pre_hook_empty"] == 0 and load["hook_failures"] == []
    assert {"hook", "capture"} <= set(load["locks"])
    assert load["locks"]["hook"]["count"] == 2
    limits = load["at_the_limits"]
    assert limits["ordinary_pre_hook"]["runs"] == 8
    assert limits["five_megabyte_pre_hook"]["runs"] == 1
    assert limits["pre_hook_empty"] == 0
    assert load["longest_hold_ms"] > 0


def test_a_bench_count_below_one_is_one_line_naming_it(cli: Cli) -> None:
    run = cli("bench", "--sizes", "20", "--remember-count", "0")
    assert run.code != 0
    assert run.err.strip() == "cortex-tui: error: --remember-count must be at least 1, got 0"


@pytest.mark.parametrize("flag", ["--sizes", "--views"])
def test_a_store_size_below_one_is_one_line_naming_it(cli: Cli, flag: str) -> None:
    run = cli("bench", flag, "0", "--hook-runs", "0", "--first-frame-runs", "0")
    assert run.code == 2
    assert run.err.strip() == (
        "cortex-tui: error: --sizes and --views take store sizes of 1 or more "
        "(--views '' skips the views)"
    )
