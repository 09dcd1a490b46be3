"""Commands about the store as a whole: stats, health, export/import, eval, demo, bench."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from cortex_tui.cli import render
from cortex_tui.cli.context import CommandContext
from cortex_tui.cli.progress import phase_progress, terminal_progress
from cortex_tui.errors import InvalidInputError
from cortex_tui.untrusted.files import MIB, read_whole

if TYPE_CHECKING:
    from cortex_tui.embed.base import Embedder
    from cortex_tui.eval.pairs_runner import PairsRun
    from cortex_tui.eval.report import EvalRun
    from cortex_tui.eval.sessions_runner import SessionsRun

IMPORT_LIMIT = 1024 * MIB
"""Largest export `import` takes in one go (100k memories export to about 60 MB)."""


def cmd_stats(ctx: CommandContext) -> int:
    stats = ctx.engine.overview.stats()
    ctx.emit(stats, render.stats_text(stats))
    return 0


def cmd_health(ctx: CommandContext) -> int:
    """Exits 1 when a deep check warns, so a cron job can notice."""
    report = ctx.engine.upkeep.health(deep=ctx.args.deep)
    shown = {key: value for key, value in report.items() if key not in ("notices", "checks")}
    lines = [f"{key:<12} {value}" for key, value in shown.items()]
    lines += [f"note         {notice}" for notice in report.get("notices", [])]
    for check in report.get("checks", []):
        mark = "ok" if check["ok"] else "WARNING"
        lines.append(f"{check['name']:<12} {mark}: {check['found']}")
        if check["fix"]:
            lines.append(f"{'':<12} fix: {check['fix']}")
    ctx.emit(report, "\n".join(lines))
    return 0 if report["ok"] else 1


def cmd_export(ctx: CommandContext) -> int:
    output = ctx.args.output
    if output is None:
        for line in ctx.engine.export():
            sys.stdout.write(line + "\n")
        return 0
    target = _export_target(Path(output))
    # Write to a temporary file and rename: a crash never leaves a truncated backup.
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=".cortex-export-", dir=target.parent)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot write in {target.parent}: {exc.strerror or exc}; choose a folder you can "
            "write to"
        ) from None
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for line in ctx.engine.export():
                handle.write(line + "\n")
                count += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    ctx.emit(
        {"file": str(target), "records": count - 1}, f"exported {count - 1} records to {target}"
    )
    return 0


def _export_target(target: Path) -> Path:
    """`target` when an export can be written there; else a one-line error with the fix."""
    if target.is_dir():
        raise InvalidInputError(
            f"{target} is a folder; give a file name, e.g. {target}/memories.jsonl"
        )
    if not target.parent.is_dir():
        raise InvalidInputError(
            f"folder {target.parent} does not exist; create it (mkdir -p {target.parent}) "
            "or give a path in an existing folder"
        )
    return target


def cmd_import(ctx: CommandContext) -> int:
    source = ctx.args.file
    if source == "-":
        data = sys.stdin.buffer.read(IMPORT_LIMIT + 1)
        if len(data) > IMPORT_LIMIT:
            raise InvalidInputError(
                f"standard input is over the {IMPORT_LIMIT // MIB} MB import limit; "
                "split the export into smaller files"
            )
    else:
        data = read_whole(
            source, limit=IMPORT_LIMIT, what="import file", fix="split it into smaller files"
        )
    try:
        lines = data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{source} is not UTF-8 text (byte {exc.start}); give the JSONL an export wrote"
        ) from None
    report = ctx.engine.upkeep.import_lines(lines, skip_invalid=ctx.args.skip_invalid)
    text = (
        f"imported {report.memories} memories, {report.entities} entities, "
        f"{report.relations} relations"
    )
    for skipped in report.skipped:
        text += f"\nskipped {skipped}"
    ctx.emit(report, text)
    return 0


def cmd_eval(ctx: CommandContext) -> int:
    from cortex_tui.embed.factory import make_embedder
    from cortex_tui.eval.dataset import Dataset, load_datasets
    from cortex_tui.eval.measured import MeasuredEmbedder
    from cortex_tui.eval.pairs_dataset import PairsDataset
    from cortex_tui.eval.pairs_runner import check_variants_fit, run_pairs
    from cortex_tui.eval.runner import run_eval
    from cortex_tui.eval.sessions_dataset import SessionsDataset
    from cortex_tui.eval.sessions_runner import run_sessions
    from cortex_tui.eval.variants import apply_sets, build_variants, replay_variants
    from cortex_tui.eval.vector_cache import CachedEmbedder

    a = ctx.args
    cutoffs = _cutoffs(a.k)
    settings = ctx.settings
    if a.embedder:
        settings = settings.model_copy(
            update={"embedder": settings.embedder.model_copy(update={"kind": a.embedder})}
        )
    transcripts = Path(a.transcripts).expanduser() if a.transcripts else None
    loaded = load_datasets([Path(p) for p in a.paths], only=a.only or (), transcripts=transcripts)
    retrieval = [d for d in loaded if isinstance(d, Dataset)]
    if a.through_capture:
        from cortex_tui.eval.through_capture import through_capture

        retrieval = through_capture(retrieval)
    pairs = [d for d in loaded if isinstance(d, PairsDataset)]
    sessions = [d for d in loaded if isinstance(d, SessionsDataset)]
    # A sessions run replays every variant into a store of its own: any setting but the
    # store's may change.
    own_stores = bool(sessions) and not retrieval and not pairs
    settings, changes = apply_sets(settings, a.set or [], own_stores=own_stores)
    variants = build_variants(settings, a.variant or [], changes, own_stores=own_stores)
    variants += replay_variants(settings, a.llm_replay or [])
    check_variants_fit(len(retrieval), variants)
    keep = Path(a.home).expanduser() if a.home else None
    bar = None if ctx.json else terminal_progress(sys.stderr, keep_finished=False)
    run, pair_runs = None, []
    with ExitStack() as stack:
        if bar is not None:
            stack.callback(bar.clear)
        if retrieval or pairs:  # a session's replay embeds in its own service
            inner: Embedder = make_embedder(settings.embedder, settings.models_path)
            if not a.no_vector_cache:
                cached = CachedEmbedder(inner, settings.home / "cache")
                stack.callback(cached.close)
                inner = cached
            embedder = MeasuredEmbedder(inner)
            if retrieval:
                run = run_eval(
                    retrieval,
                    variants,
                    embedder,
                    cutoffs,
                    keep_under=keep,
                    progress=bar,
                    link_entities=a.link_entities,
                )
            pair_runs = run_pairs(pairs, variants, embedder, progress=bar)
        session_runs = run_sessions(sessions, variants, keep_under=keep, progress=bar)
    _print_eval(ctx, run, pair_runs, session_runs)
    return 0


def _cutoffs(given: list[str] | None) -> list[int] | None:
    try:
        cutoffs = [int(k) for k in given] if given else None
    except ValueError:
        raise InvalidInputError("--k takes whole numbers, e.g. --k 5,10") from None
    if cutoffs is not None and any(k < 1 for k in cutoffs):
        raise InvalidInputError("--k cut-offs must be at least 1")
    return cutoffs


def _print_eval(
    ctx: CommandContext,
    run: EvalRun | None,
    pair_runs: list[PairsRun],
    session_runs: list[SessionsRun],
) -> None:
    from cortex_tui.eval.pairs_report import pairs_json, pairs_text
    from cortex_tui.eval.report import to_json, to_text
    from cortex_tui.eval.sessions_report import sessions_json, sessions_text

    if ctx.json:
        report = to_json(run) if run is not None else {}
        if pair_runs:
            report["pairs"] = [pairs_json(r) for r in pair_runs]
        if session_runs:
            report["sessions"] = [sessions_json(r) for r in session_runs]
        print(json.dumps(report, indent=2))
        return
    texts = [to_text(run, by_category=ctx.args.by_category)] if run is not None else []
    if pair_runs:
        texts.append(pairs_text(pair_runs))
    texts += [sessions_text(r) for r in session_runs]
    print("\n\n".join(texts))


def cmd_demo(ctx: CommandContext) -> int:
    from cortex_tui.demo.loader import load_demo

    summary = load_demo(ctx.local_engine)
    ctx.emit(summary, ", ".join(f"{v} {k}" for k, v in summary.items()) + " loaded")
    return 0


def cmd_bench(ctx: CommandContext) -> int:
    from cortex_tui.bench.runner import BenchOptions, run_bench

    a = ctx.args
    try:
        sizes = [int(s) for s in a.sizes]
        views = [int(s) for s in a.views]
    except ValueError:
        raise InvalidInputError(
            "--sizes and --views take whole numbers, e.g. --sizes 1000,10000"
        ) from None
    if min(sizes + views, default=1) < 1:  # a store of 0 memories left the views bench hanging
        raise InvalidInputError(
            "--sizes and --views take store sizes of 1 or more (--views '' skips the views)"
        )
    counts = (a.sync_lines, a.sync_saves, a.load_sessions, a.load_turns, a.load_think_ms)
    if min(*counts, a.first_frame_runs, a.cold_runs, a.archive_turns) < 0:
        raise InvalidInputError(
            "--sync-lines, --sync-saves, --load-sessions, --load-turns, --load-think-ms, "
            "--first-frame-runs, --cold-runs and --archive-turns take 0 or more"
        )
    for flag, count in (("--import-count", a.import_count), ("--remember-count", a.remember_count)):
        if count < 1:
            raise InvalidInputError(f"{flag} must be at least 1, got {count}")
    options = BenchOptions(
        sizes=sizes,
        queries=a.queries,
        embedder=a.embedder,
        hook_runs=a.hook_runs,
        archive_turns=a.archive_turns,
        cold_runs=a.cold_runs,
        import_count=a.import_count,
        remember_count=a.remember_count,
        sync_lines=a.sync_lines,
        sync_saves=a.sync_saves,
        load_sessions=a.load_sessions if a.load_turns else 0,
        load_turns=a.load_turns,
        load_think_ms=a.load_think_ms,
        views=views,
        first_frame_runs=a.first_frame_runs,
        privacy=None if a.privacy is None else [Path(p).expanduser() for p in a.privacy],
    )
    report = run_bench(options, progress=None if ctx.json else print)
    ctx.emit(report, "")
    return 0


def cmd_reembed(ctx: CommandContext) -> int:
    from cortex_tui.maintenance.reembed import reembed

    ctx.stop_service("to re-embed its store")
    progress = phase_progress(sys.stderr, "re-embedding", quiet=ctx.json)
    report = reembed(ctx.settings, ctx.args.to, progress)
    if report.source == report.target:
        text = (
            f"rebuilt the index of {report.memories} memories and {report.entities} entities "
            f"({report.target}: vectors kept, lexical vectors and neighbour context made anew)"
        )
    else:
        text = (
            f"re-embedded {report.memories} memories and {report.entities} entities: "
            f"{report.source} → {report.target} (the embedder saved in config.toml)"
        )
        if report.resumed:
            text += f"; {report.resumed} memories' vectors kept from the interrupted run"
    ctx.emit(report.__dict__, text)
    return 0
