"""Maintenance commands: the lifecycle pass, compaction, the markdown indexer, scrub."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.cli.progress import terminal_progress
from cortex_tui.errors import ConfigError, CortexError

if TYPE_CHECKING:
    from cortex_tui.indexer import IndexReport, Summarize
    from cortex_tui.lifecycle import LifecycleReport


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "lifecycle",
        parents=[common],
        help="expire ttl and idle session memories, merge near-duplicates, settle conflicts",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="report what would change and change nothing"
    )
    sub.add_parser(
        "optimize",
        parents=[common],
        help=(
            "compact the store now, and move an older store to this version's layout "
            "(about 20 s at 100k; the service compacts by itself once quiet)"
        ),
    )
    p = sub.add_parser(
        "scrub",
        parents=[common],
        help="redact secrets a store already holds: every memory version, the journal, "
        "entity names and the spool",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="report what would change and change nothing"
    )
    p = sub.add_parser("index", parents=[common], help="store markdown documentation as memories")
    p.add_argument("path", help="a markdown file, or a folder searched recursively")
    p.add_argument("--project", help="store the chunks as this project's memories")
    p.add_argument(
        "--summarize", action="store_true", help="also store an LLM summary of each changed file"
    )


def cmd_optimize(ctx: CommandContext) -> int:
    """All of it at once, whatever the store's layout: never on a hook or recall path
    (the service compacts in steps, once quiet: `server/compaction.py`)."""
    started = time.perf_counter()
    ctx.local_engine.store.optimize()
    seconds = round(time.perf_counter() - started, 1)
    ctx.emit({"seconds": seconds}, f"optimized the store in {seconds} s")
    return 0


def cmd_scrub(ctx: CommandContext) -> int:
    """In this process, the service stopped: the scrub rewrites points of every kind."""
    from cortex_tui.agent_turn.sessions import rewrite_sessions
    from cortex_tui.engine.scrub import rebuild, scrub
    from cortex_tui.privacy.records import redact_strings
    from cortex_tui.sync.state import StateStore

    engine = ctx.local_engine
    home = engine.settings.home

    def sessions(clean: Callable[[str], str], write: bool) -> int:
        return rewrite_sessions(home, lambda state: redact_strings(state, clean), write=write)

    def sync_state(clean: Callable[[str], str], write: bool) -> int:
        return StateStore(home).rewrite(clean, write=write)

    report = scrub(
        engine,
        dry_run=ctx.args.dry_run,
        elsewhere={"agent session state(s)": sessions, "file sync state": sync_state},
    )
    if not report.dry_run:  # also after a scrub a crash cut short: its old files may remain
        try:
            report.rebuilt = rebuild(engine)
        except CortexError:
            ctx.emit(report, report.describe())  # what was done, and the backups to delete
            raise
        finally:
            ctx.close()
    ctx.emit(report, report.describe())
    return 0


def cmd_lifecycle(ctx: CommandContext) -> int:
    report = ctx.engine.upkeep.lifecycle(dry_run=ctx.args.dry_run)
    ctx.emit(report, _lifecycle_text(report))
    return 0


def cmd_index(ctx: CommandContext) -> int:
    from cortex_tui.indexer import index_path

    summarize = _summarizer(ctx) if ctx.args.summarize else None
    progress = terminal_progress(sys.stderr)
    report = index_path(
        ctx.local_engine,
        Path(ctx.args.path),
        project=ctx.args.project,
        summarize=summarize,
        progress=progress,
    )
    ctx.emit(report, _index_text(report))
    return 0


def _summarizer(ctx: CommandContext) -> Summarize:
    """Built before the store is opened, so a missing LLM fails fast and costs nothing."""
    from cortex_tui.indexer.summary import llm_summarizer
    from cortex_tui.llm.factory import make_llm

    client = make_llm(ctx.settings.llm)  # None when the provider is "none"
    if client is None:
        raise ConfigError("--summarize needs an LLM; set CORTEX_LLM__PROVIDER")
    return llm_summarizer(client, ctx.settings.llm.timeout)


def _lifecycle_text(report: LifecycleReport) -> str:
    counts = report.counts
    survivors = len(report.merges)
    head = f"lifecycle at {report.now:%Y-%m-%d %H:%M} UTC"
    lines = [
        head + (" (dry run: nothing was changed)" if report.dry_run else ""),
        f"  ttl expiry      {counts['ttl_expired']} archived",
        f"  session decay   {counts['session_decayed']} archived",
        f"  consolidation   {counts['consolidated']} merged into {survivors} memories",
        f"  conflicts       {counts['conflicts_resolved']} groups resolved",
        f"  turn archive    {counts['archive_removed']} messages removed (archive.keep_days, "
        "archive.max_messages)",
    ]
    if report.backup:
        lines.append(f"backed up first to {report.backup}")
    if report.journal_ids:
        lines.append(f"undo with `cortex-tui undo --count {len(report.journal_ids)}`")
    elif report.dry_run and report.changed:
        lines.append("run `cortex-tui lifecycle` to apply")
    return "\n".join(lines)


def _index_text(report: IndexReport) -> str:
    text = (
        f"indexed {report.files_seen} files: {report.files_changed} changed, "
        f"{report.files_unchanged} unchanged, {report.files_removed} removed; "
        f"{report.chunks_stored} chunks stored, {report.chunks_retired} retired"
    )
    if report.summaries_stored or report.summaries_failed:
        text += f"\nsummaries: {report.summaries_stored} stored, {report.summaries_failed} failed"
    for skipped in report.skipped:
        text += f"\nskipped {skipped}"
    return text


HANDLERS: dict[str, Callable[[CommandContext], int]] = {
    "lifecycle": cmd_lifecycle,
    "index": cmd_index,
    "optimize": cmd_optimize,
    "scrub": cmd_scrub,
}
