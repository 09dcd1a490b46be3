"""`sync` (one pass, for cron and CI) and `watch` (continuous; or owned by the service)."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.cli.progress import phase_progress, terminal_progress
from cortex_tui.errors import CortexError, InvalidInputError

if TYPE_CHECKING:
    from cortex_tui.sync.deliver import Delivery
    from cortex_tui.sync.run import SyncReport


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "sync", parents=[common], help="take in what changed in notes and transcripts, once"
    )
    _paths(p, "+")
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="return once the changes are queued; the service stores them",
    )
    p = sub.add_parser(
        "watch", parents=[common], help="keep memory in step with notes and transcripts"
    )
    _paths(p, "*")
    p.add_argument(
        "--service",
        action="store_true",
        help="let the local service watch PATHs for as long as it runs (no PATH: show them)",
    )
    p.add_argument("--off", action="store_true", help="with --service: stop the service's watch")


def _paths(p: OneLineParser, count: str) -> None:
    p.add_argument(
        "paths",
        nargs=count,
        metavar="PATH",
        help="notes files (.md, .markdown, .txt), transcripts (.jsonl), OpenClaw session "
        "stores (openclaw-agent.sqlite; ~/.openclaw/agents holds them) or folders of them",
    )
    p.add_argument("--project", help="store the notes as this project's (default: git root)")


def cmd_sync(ctx: CommandContext) -> int:
    report, delivery = _pass(ctx, wait=not ctx.args.no_wait, bar=True)
    ctx.emit(_json(report, delivery), _text(report, delivery))
    return 0


def cmd_watch(ctx: CommandContext) -> int:
    if ctx.args.service:
        return _service_watch(ctx)
    if ctx.args.off:
        raise InvalidInputError("--off goes with --service: `cortex-tui watch --service --off`")
    if not ctx.args.paths:
        raise InvalidInputError("give the paths to watch: `cortex-tui watch ~/notes/MEMORY.md`")
    from cortex_tui.sync.watch import watch_paths

    def catch_up() -> None:
        """Once the watch is in place: what changed while nothing watched."""
        started = time.perf_counter()
        _status(ctx, *_pass(ctx, wait=True, bar=True), started=started, first=True)
        shown = ", ".join(ctx.args.paths)
        print(f"watching {shown} (Ctrl-C to stop)", file=sys.stderr, flush=True)

    def on_batch() -> None:
        started = time.perf_counter()
        try:
            _status(ctx, *_pass(ctx, wait=True, bar=False), started=started)
        except CortexError as exc:  # one failed pass does not end the watch
            print(f"{time.strftime('%H:%M:%S')} pass failed: {exc}", file=sys.stderr, flush=True)

    # Ctrl-C is how a foreground watch ends, even when it was started from a script
    # that runs it with SIGINT ignored (a non-interactive shell does for `cmd &`).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(KeyboardInterrupt):
        watch_paths([Path(p) for p in ctx.args.paths], on_batch, ready=catch_up)
    print("stopped watching", file=sys.stderr)
    return 0


def _pass(ctx: CommandContext, *, wait: bool, bar: bool) -> tuple[SyncReport, Delivery]:
    from cortex_tui.sync.deliver import deliver
    from cortex_tui.sync.run import sync_paths

    reading = terminal_progress(sys.stderr, keep_finished=False) if bar and not ctx.json else None
    report = sync_paths(
        [Path(p) for p in ctx.args.paths],
        ctx.settings.home,
        project=ctx.args.project,
        progress=reading,
    )
    if reading:
        reading.clear()
    storing = phase_progress(sys.stderr, "stored", quiet=ctx.json or not bar)
    daemon = ctx.settings.daemon and not ctx.args.no_daemon
    return report, deliver(ctx.settings, daemon=daemon, wait=wait, progress=storing)


def _status(
    ctx: CommandContext,
    report: SyncReport,
    delivery: Delivery,
    *,
    started: float,
    first: bool = False,
) -> None:
    """One line per pass: when, what changed, how long until stored."""
    if ctx.json:
        ctx.emit(_json(report, delivery), "")
        return
    changed = [c.describe() for c in report.changes] + report.skipped
    if not changed and not first:
        return
    said = " · ".join(changed) or f"{report.files_seen} files, nothing new"
    took = time.perf_counter() - started
    if not delivery.stored:
        outcome = delivery.note
    else:
        outcome = f"stored in {took:.1f} s" if delivery.operations else "up to date"
    print(f"{time.strftime('%H:%M:%S')} {said} ({outcome})", flush=True)


def _service_watch(ctx: CommandContext) -> int:
    from cortex_tui.clients import local_service
    from cortex_tui.sync.watch import WatchList, load_watch_list, save_watch_list

    home = ctx.settings.home
    if ctx.args.off or ctx.args.paths:
        paths = (
            [] if ctx.args.off else [str(Path(p).expanduser().resolve()) for p in ctx.args.paths]
        )
        for path in paths:
            if not Path(path).exists():
                raise InvalidInputError(f"{path} does not exist; give a file or a folder")
        save_watch_list(home, WatchList(paths=paths, project=ctx.args.project))
        if not local_service.start(home, wait=ctx.settings.service.start_wait):
            ctx.emit(
                {"paths": paths, "active": False},
                "saved; the service watches them from its next start (it did not start now)",
            )
            return 0
        local_service.call(home, "POST", "/v1/sync/watch", timeout=10.0)
    watched = load_watch_list(home)
    text = (
        "the service watches " + ", ".join(watched.paths)
        if watched.paths
        else "the service watches nothing; add paths with `cortex-tui watch --service PATH`"
    )
    ctx.emit(watched, text)
    return 0


def _json(report: SyncReport, delivery: Delivery) -> dict[str, object]:
    return {
        **report.to_json(),
        "stored": delivery.stored,
        "delivered_operations": delivery.operations,
        "note": delivery.note,
    }


def _text(report: SyncReport, delivery: Delivery) -> str:
    lines = [change.describe() for change in report.changes]
    lines += report.skipped
    head = (
        f"synced {report.files_seen} files: {len(report.changes)} changed, "
        f"{report.unchanged} unchanged"
    )
    if delivery.operations:
        changes = f"{delivery.operations} change" + ("" if delivery.operations == 1 else "s")
        head += f"; {changes} " + ("stored" if delivery.stored else delivery.note)
    return "\n".join([head, *lines])


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"sync": cmd_sync, "watch": cmd_watch}
