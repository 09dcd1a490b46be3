"""Backups and damage: `backup [PATH]`, `backup --list`, `restore-backup PATH`, `repair`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.cli.progress import phase_progress
from cortex_tui.errors import InvalidInputError

if TYPE_CHECKING:  # the parser imports this module: nothing heavy at import time
    from cortex_tui.maintenance.backup import BackupInfo


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "backup",
        parents=[common],
        help="write a consistent copy of the whole store to one file (the service keeps running)",
    )
    p.add_argument(
        "path", nargs="?", help="file or folder to write to (default: the home's backups/)"
    )
    p.add_argument("--list", action="store_true", help="list the backups in the backups folder")
    p = sub.add_parser(
        "restore-backup",
        parents=[common],
        help="replace the store with a backup (the replaced store is backed up first)",
    )
    p.add_argument("path", help="the backup file")
    p.add_argument("--yes", action="store_true", help="restore without asking")
    sub.add_parser(
        "repair",
        parents=[common],
        help="rebuild a damaged store from what is readable, beside it (the damaged one is kept)",
    )


def cmd_backup(ctx: CommandContext) -> int:
    if ctx.args.list:
        return _list(ctx)
    path = ctx.args.path
    # The service writes the file: hand it a path that does not depend on its own cwd.
    target = str(Path(path).expanduser().absolute()) if path else None
    report = ctx.engine.upkeep.backup(target)
    size = report.bytes / 1_000_000
    ctx.emit(
        report,
        f"backed up {_contents(report.info)} to {report.path} ({size:.1f} MB, "
        f"{report.seconds:.1f} s)",
    )
    return 0


def cmd_restore_backup(ctx: CommandContext) -> int:
    from cortex_tui.maintenance.backup import read_info
    from cortex_tui.maintenance.restore import restore_backup

    path = Path(ctx.args.path).expanduser()
    info = read_info(path)
    if not ctx.args.yes:
        _confirm(ctx, path, info)
    ctx.stop_service("to restore its store")
    progress = phase_progress(sys.stderr, "restoring", quiet=ctx.json)
    report = restore_backup(ctx.settings, path, progress)
    text = f"restored {_contents(info)} from {path} ({report.seconds:.1f} s)"
    if report.damaged:
        text += f"; the damaged store was moved to {report.previous} (delete it when done)"
    elif report.previous:
        text += f"; the store it replaced is backed up in {report.previous}"
    ctx.emit(report.__dict__, text)
    return 0


def cmd_repair(ctx: CommandContext) -> int:
    from cortex_tui.maintenance.repair import repair

    ctx.stop_service("to repair its store")
    report = repair(ctx.settings, phase_progress(sys.stderr, "rebuilding", quiet=ctx.json))
    copied = ", ".join(f"{count} {name}" for name, count in report.copied.items())
    lines = [f"rebuilt the store from what was readable: {copied} ({report.seconds:.1f} s)"]
    lost = {name: count for name, count in report.lost.items() if count}
    if lost:
        lines.append(
            "unreadable, so not in the new store: "
            + ", ".join(f"{count} {name}" for name, count in lost.items())
            + "; a backup from before the damage has them (`cortex-tui backup --list`)"
        )
    if report.journal_states:
        lines.append(
            f"the journal's last record of {report.journal_memories} lost memories is in "
            f"{report.journal_states} (`cortex-tui import` it after a look)"
        )
    lines.append(f"what was readable is also backed up in {report.salvage}")
    if report.previous:
        lines.append(f"the old store is kept at {report.previous} (delete it when done)")
    ctx.emit(report.__dict__, "\n".join(lines))
    return 0


def _confirm(ctx: CommandContext, path: Path, info: BackupInfo) -> None:
    question = (
        f"replace the store at {ctx.settings.store_path} with the backup of "
        f"{info.created_at:%Y-%m-%d %H:%M} UTC ({_contents(info)})? [y/N] "
    )
    if not sys.stdin.isatty():
        raise InvalidInputError(f"{question.removesuffix(' [y/N] ')} add --yes to confirm")
    print(question, end="", file=sys.stderr, flush=True)
    if input().strip().lower() not in ("y", "yes"):
        raise InvalidInputError("nothing was restored")


def _list(ctx: CommandContext) -> int:
    from cortex_tui.maintenance.backup import list_backups

    folder = ctx.settings.backups_path
    found = list_backups(folder) if folder.is_dir() else []
    rows = [
        {"path": str(path), "size": path.stat().st_size, **info.model_dump(mode="json")}
        for path, info in found
    ]
    lines = [
        f"{info.created_at:%Y-%m-%d %H:%M:%S}  {info.reason:<18} {_contents(info):<60} {path}"
        for path, info in found
    ]
    ctx.emit(rows, "\n".join(lines) or f"no backups in {folder}; `cortex-tui backup` takes one")
    return 0


def _contents(info: BackupInfo) -> str:
    c = info.counts
    return (
        f"{c.get('memories', 0)} memories, {c.get('entities', 0)} entities, "
        f"{c.get('relations', 0)} relations, {c.get('journal', 0)} journal entries"
    )


HANDLERS: dict[str, Callable[[CommandContext], int]] = {
    "backup": cmd_backup,
    "restore-backup": cmd_restore_backup,
    "repair": cmd_repair,
}
