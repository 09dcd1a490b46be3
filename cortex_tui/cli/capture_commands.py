"""`cortex-tui capture`: turn a conversation (text or a Claude Code transcript) into memories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext, read_text_arg
from cortex_tui.errors import InvalidInputError


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "capture", parents=[common], help="extract memories from a conversation turn"
    )
    p.add_argument("--user", help="what the user said ('-' reads stdin)")
    p.add_argument("--assistant", help="what the assistant answered")
    p.add_argument("--transcript", help="a Claude Code transcript (.jsonl)")
    p.add_argument("--project")
    p.add_argument("--session")


def cmd_capture(ctx: CommandContext) -> int:
    a = ctx.args
    if a.transcript and (a.user or a.assistant):
        raise InvalidInputError("give either --transcript or --user/--assistant, not both")
    if a.transcript:
        text = _transcript_text(Path(a.transcript))
        source = f"capture:{Path(a.transcript).name}"
    else:
        parts = []
        if a.user:
            parts.append(f"User: {read_text_arg(a.user)}")
        if a.assistant:
            parts.append(f"Assistant: {a.assistant}")
        if not parts:
            raise InvalidInputError("nothing to capture; give --user and/or --assistant text")
        text, source = "\n\n".join(parts), "capture"
    report = ctx.engine.capture(text, project=a.project, session_id=a.session, source=source)
    lines = [f"extractor: {report.extractor}"]
    if report.fallback_reason:
        lines.append(f"(LLM failed, used the offline extractor: {report.fallback_reason})")
    lines += [f"- {outcome.describe()}" for outcome in report.outcomes]
    if not report.outcomes:
        lines.append("nothing durable found")
    ctx.emit(report, "\n".join(lines))
    return 0


def _transcript_text(path: Path) -> str:
    from cortex_tui.agent_turn.agents.claude_code.transcript import (
        Turn,
        conversation_text,
        read_transcript_turns,
    )

    turns: list[Turn] = []
    offset = 0
    while True:  # a bounded piece at a time, to the end of the file
        more, next_offset = read_transcript_turns(path, offset)
        turns += more
        if next_offset == offset:
            break
        offset = next_offset
    if not turns:
        raise InvalidInputError(f"{path} holds no user or assistant messages")
    return conversation_text(turns)


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"capture": cmd_capture}
