"""`cortex-tui given`: what memory gave the agent on each turn, as it was given.

Grouped by session, newest first: each prompt with the memories its context held (rank,
score, id, text), the standing rules, what the budget left out and the tokens used;
`--explain` adds each memory's score breakdown as computed on that turn.
"""

from __future__ import annotations

from collections.abc import Callable

from cortex_tui.cli import render
from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import InvalidInputError
from cortex_tui.format import line_text
from cortex_tui.given.record import GivenMemory, GivenRecord

MAX_LIMIT = 1000
TEXT_WIDTH = 100
"""Characters of a memory's text a line shows (the JSON has it all)."""


OLD_NAME = "turns"
"""The command's name up to 0.1.0, before "turn" came to mean a conversation turn only: an
alias for one release, so that scripts calling it keep working meanwhile."""


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "given",
        aliases=[OLD_NAME],
        parents=[common],
        help=f"what memory gave the agent on each turn, and why (old name: {OLD_NAME})",
        description="The contexts given to agents (hooks, MCP recalls), newest first, "
        "grouped by session: each memory with its rank and score as computed then, the "
        "standing rules, and what the budget left out. The TUI's Given pane shows the same. "
        f"`{OLD_NAME}` is this command's old name, kept for one release.",
    )
    p.add_argument("--session", help="one session: its id, or the start of it")
    p.add_argument("--agent", help="one agent's turns: claude, openclaw, mcp, plain")
    p.add_argument("--limit", type=int, default=20, help="turns shown, 1 to 1000 (default 20)")
    p.add_argument(
        "--explain", action="store_true", help="each memory's score breakdown on that turn"
    )


def cmd_given(ctx: CommandContext) -> int:
    a = ctx.args
    if not 1 <= a.limit <= MAX_LIMIT:
        raise InvalidInputError(f"--limit must be 1 to {MAX_LIMIT}")
    turns = ctx.engine.given.records(session=a.session, agent=a.agent, limit=a.limit)
    if ctx.json:
        ctx.emit(turns, "")
        return 0
    if not turns:
        where = f" in a session starting {a.session!r}" if a.session else ""
        print(f"no context has been given yet{where} (injections.enabled, keep_days)")
        return 0
    print("\n".join(_turns_text(turns, explain=a.explain)))
    return 0


def _turns_text(turns: list[GivenRecord], *, explain: bool) -> list[str]:
    """A session's heading before each run of its turns (sessions interleave when two
    agents work at once: a session may head more than one run)."""
    lines: list[str] = []
    for number, turn in enumerate(turns):
        if number == 0 or turn.session != turns[number - 1].session:
            where = f"  {turn.project}" if turn.project else ""
            heading = f"session {turn.session or '—'}  {turn.agent}{where}"
            lines += [heading] if number == 0 else ["", heading]
        lines += _turn_lines(turn, explain)
    return lines


def _turn_lines(turn: GivenRecord, explain: bool) -> list[str]:
    said = f'  "{_short(turn.prompt, 70)}"' if turn.prompt else ""
    lines = [f"  {turn.at:%Y-%m-%d %H:%M:%S}  {turn.trigger}{said}"]
    if not turn.given and not turn.quotes:
        lines.append(f"      nothing given{f': {turn.outcome}' if turn.outcome else ''}")
    for memory in turn.given:
        lines.append(f"    {_place(memory)}  {memory.short_id}  {_text(turn, memory)}")
        if explain and memory.breakdown is not None:
            lines += [f"  {line}" for line in render.breakdown_lines(memory.breakdown)]
    for quote in turn.quotes:
        said = f"{quote.said_at:%Y-%m-%d} {quote.speaker or ''}".rstrip()
        lines.append(
            f"    {'quote':>12}  {quote.short_id}  {said}: {_short(quote.text, TEXT_WIDTH)}"
        )
        if explain:
            lines.append(f"      relevance {quote.gate.formula()}")
    if turn.left_out:
        left = ", ".join(f"#{m.rank} {m.id[:8]} ({m.score:.3f})" for m in turn.left_out)
        lines.append(f"      left out (no room): {left}")
    if turn.held_back and explain:
        lines.append("      held back (does not bear on the prompt):")
        for held in turn.held_back:
            lines.append(f"        #{held.rank} {held.id[:8]}  {_short(held.text, TEXT_WIDTH)}")
            lines.append(f"            {held.reason}")
    elif turn.held_back:
        best = max(held.relevance for held in turn.held_back)
        lines.append(
            f"      held back by the relevance gate: {len(turn.held_back)} (best relevance "
            f"{best:.2f}, floor {turn.held_back[0].floor:.2f}; --explain says why)"
        )
    budget = f" of {turn.budget_tokens}" if turn.budget_tokens is not None else ""
    lines.append(f"      {turn.used_tokens}{budget} tokens, {len(turn.context)} characters")
    return lines


def _place(memory: GivenMemory) -> str:
    if memory.rank is None or memory.score is None:
        return f"{'standing':>12}"
    return f"{memory.rank:>3}. {memory.score:.4f}"


def _text(turn: GivenRecord, memory: GivenMemory) -> str:
    """The memory's text as its line gave it: the label dropped, the block's escaping
    undone (the terminal shows `<`, not `&lt;`)."""
    line = turn.line_of(memory)
    return _short(line_text(line), TEXT_WIDTH)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"given": cmd_given, OLD_NAME: cmd_given}
"""argparse names the command as it was typed, so the old name needs its own entry."""
