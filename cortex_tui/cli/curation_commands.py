"""Commands for a person's decisions: conflicts, resolve, merge, dismiss, restore, undo."""

from __future__ import annotations

from collections.abc import Callable

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext, read_text_arg
from cortex_tui.curation import journal
from cortex_tui.errors import InvalidInputError
from cortex_tui.format import humanise_age
from cortex_tui.models import WriteAction


def register(sub: Subparsers, common: OneLineParser) -> None:
    sub.add_parser("conflicts", parents=[common], help="conflict groups awaiting resolution")
    p = sub.add_parser("resolve", parents=[common], help="keep one member of a conflict group")
    p.add_argument("group")
    p.add_argument("--keep", required=True, help="id of the memory to keep")
    p = sub.add_parser(
        "merge", parents=[common], help="replace a conflict group by one memory you write"
    )
    p.add_argument("group")
    p.add_argument("content", help="the merged text ('-' reads stdin)")
    p = sub.add_parser("dismiss", parents=[common], help="mark a conflict group as not a conflict")
    p.add_argument("group")
    p = sub.add_parser(
        "restore", parents=[common], help="make an old version current again (as a new version)"
    )
    p.add_argument("memory_id")
    p = sub.add_parser("undo", parents=[common], help="undo the last curation actions")
    p.add_argument("--count", type=int, default=1)


def cmd_conflicts(ctx: CommandContext) -> int:
    groups = ctx.engine.curation.conflicts()
    now = ctx.now()
    lines: list[str] = []
    for group in groups:
        lines.append(f"group {group.id[:8]} ({len(group.members)} members)")
        for m in group.members:
            where = m.project or "global"
            lines.append(
                f"  {m.short_id}  conf {m.confidence:.2f}  {humanise_age(m.created_at, now)} old  "
                f"{m.source}  {where}\n      {m.content}"
            )
            why = m.last_decision(WriteAction.CONFLICT)
            if why is not None:
                lines.append(f"      why: {why.describe()}")
    ctx.emit(groups, "\n".join(lines) if lines else "no conflicts await resolution")
    return 0


def cmd_resolve(ctx: CommandContext) -> int:
    kept = ctx.engine.curation.resolve(ctx.args.group, ctx.args.keep)
    ctx.emit(kept, f"kept {kept.short_id}; the other members are retired (undo reverses it)")
    return 0


def cmd_merge(ctx: CommandContext) -> int:
    merged = ctx.engine.curation.merge(ctx.args.group, read_text_arg(ctx.args.content))
    ctx.emit(merged, f"merged into {merged.id} (undo reverses it)")
    return 0


def cmd_dismiss(ctx: CommandContext) -> int:
    members = ctx.engine.curation.dismiss(ctx.args.group)
    ctx.emit(members, f"dismissed: {len(members)} memories are no longer in conflict")
    return 0


def cmd_restore(ctx: CommandContext) -> int:
    restored = ctx.engine.curation.restore(ctx.args.memory_id)
    ctx.emit(restored, f"restored as new version {restored.id}")
    return 0


def cmd_undo(ctx: CommandContext) -> int:
    if ctx.args.count < 1:
        raise InvalidInputError("--count must be at least 1")
    entries = ctx.engine.curation.undo(ctx.args.count)
    data = [
        {
            "action": e.action,
            "at": e.created_at.isoformat(),
            "id": e.id,
            "note": e.payload.get("note", ""),
        }
        for e in entries
    ]
    ctx.emit(
        data,
        "\n".join(
            f"undid {journal.describe(e)} from {e.created_at:%Y-%m-%d %H:%M}" for e in entries
        ),
    )
    return 0


HANDLERS: dict[str, Callable[[CommandContext], int]] = {
    "conflicts": cmd_conflicts,
    "resolve": cmd_resolve,
    "merge": cmd_merge,
    "dismiss": cmd_dismiss,
    "restore": cmd_restore,
    "undo": cmd_undo,
}
