"""Commands that read and write individual memories."""

from __future__ import annotations

import sys

from cortex_tui.cli import render
from cortex_tui.cli.context import CommandContext, parse_time, read_text_arg
from cortex_tui.cli.parser import GATE_FLOOR
from cortex_tui.errors import InvalidInputError
from cortex_tui.models import (
    MemoryDraft,
    MemoryStatus,
    MemoryType,
    Scope,
    WriteAction,
)
from cortex_tui.recall.gate import Floors
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter


def cmd_remember(ctx: CommandContext) -> int:
    a = ctx.args
    content = read_text_arg(a.content)
    if not content.strip():
        raise InvalidInputError("memory content is empty; give the text to remember")
    draft = MemoryDraft(
        content=content,
        type=MemoryType(a.type) if a.type else None,
        scope=Scope(a.scope) if a.scope else None,
        project=a.project,
        tags=a.tags,
        confidence=_confidence(a.confidence),
        session_id=a.session,
        ttl_hours=a.ttl_hours,
    )
    result = ctx.engine.remember(draft)
    lines = [f"{result.action.value} {result.memory.id}"]
    if result.reason:
        lines.append(f"  why: {result.why()}")
    ctx.emit(result, "\n".join(lines))
    return 0


def recall_request(ctx: CommandContext, *, update_access: bool) -> RecallRequest:
    a = ctx.args
    if getattr(a, "limit", None) is not None and a.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    return RecallRequest(
        query=_query(a.query),
        project=a.project,
        types=[MemoryType(t) for t in a.types] if a.types else None,
        tags=a.tags,
        limit=a.limit,
        budget_tokens=getattr(a, "budget", None),
        include_history=a.include_history,
        as_of=parse_time(a.as_of),
        update_access=update_access,
        profile=a.profile,
        fusion=a.fusion,
        min_relevance=_min_relevance(ctx),
    )


def _min_relevance(ctx: CommandContext) -> float | None:
    """`--min-relevance`: a floor given, the hooks' own, or none (rank everything)."""
    given = getattr(ctx.args, "min_relevance", None)
    if given is None:
        return None
    if given == GATE_FLOOR:
        return Floors.of(ctx.settings.recall.gate_floor, None).floor
    try:
        floor = float(given)
    except ValueError:
        floor = -1.0
    if not 0 < floor < 1:
        raise InvalidInputError(
            f"--min-relevance takes a relevance between 0 and 1 (got {given!r}); alone, "
            "it uses the hooks' floor"
        )
    return floor


def cmd_recall(ctx: CommandContext) -> int:
    a = ctx.args
    if a.budget is not None and a.budget < 50:
        raise InvalidInputError("--budget must be at least 50 tokens")
    ctx.settings.weight_profile(a.profile)
    request = recall_request(ctx, update_access=not a.no_access_update)
    response = ctx.engine.recall(request)
    for notice in response.notices:
        print(f"cortex-tui: note: {notice}", file=sys.stderr)
    if ctx.json:
        ctx.emit(response, "")
        return 0
    if a.context:
        print(response.context)
        return 0
    if not response.results and not response.held_back:
        print("no memories match")
        return 0
    now = ctx.now()
    lines: list[str] = []
    for result in response.results:
        lines.append(render.result_line(result, now))
        if a.explain:
            lines += render.breakdown_lines(result.breakdown)
    lines += render.held_back_lines(response.held_back, explain=a.explain)
    lines.append(f"({response.candidates} candidates, {response.elapsed_ms:.1f} ms)")
    print("\n".join(lines))
    return 0


def cmd_explain(ctx: CommandContext) -> int:
    request = recall_request(ctx, update_access=False)
    explanation = ctx.engine.explain(request, ctx.args.memory_id)
    ctx.emit(explanation, render.explanation_text(explanation))
    return 0


def list_filter(ctx: CommandContext, text: str | None = None) -> MemoryFilter:
    a = ctx.args
    return MemoryFilter(
        project=a.project,
        project_only=a.project is not None,
        types=[MemoryType(t) for t in a.types] if a.types else None,
        scopes=[Scope(s) for s in a.scopes] if a.scopes else None,
        tags=a.tags,
        statuses=[MemoryStatus(s) for s in a.statuses] if a.statuses else [MemoryStatus.ACTIVE],
        current_only=not a.all_versions,
        text=text,
    )


def cmd_list(ctx: CommandContext, text: str | None = None) -> int:
    if ctx.args.limit < 1:
        raise InvalidInputError("--limit must be at least 1")
    page = ctx.engine.list_memories(list_filter(ctx, text), ctx.args.limit, ctx.args.offset)
    now = ctx.now()
    lines = []
    for memory in page.memories:
        lines.append(render.memory_header(memory, now))
        lines.append(f"    {memory.content}")
    shown = f"{len(page.memories)} of {page.total}"
    lines.append(
        f"({shown}; next page: --offset {page.next_offset})" if page.next_offset else f"({shown})"
    )
    ctx.emit(page, "\n".join(lines))
    return 0


def cmd_search(ctx: CommandContext) -> int:
    text = ctx.args.text.strip()
    if not text:
        raise InvalidInputError("search text is empty; give one or more words")
    return cmd_list(ctx, text)


def cmd_get(ctx: CommandContext) -> int:
    memory = ctx.engine.get(ctx.args.memory_id)
    said = ctx.engine.archive.said_in(memory.id) if memory.said_in else []
    lines = [render.memory_detail(memory), *render.said_in_lines(memory, said)]
    ctx.emit(memory, "\n".join(lines))
    return 0


def cmd_history(ctx: CommandContext) -> int:
    chain = ctx.engine.history(ctx.args.memory_id)
    lines: list[str] = []
    for version in reversed(chain):
        until = version.valid_to.isoformat() if version.valid_to else "now"
        lines.append(f"{version.short_id}  {version.valid_from.isoformat()} → {until}")
        lines.append(f"    {version.content}")
        made = version.last_decision(WriteAction.SUPERSEDED)
        if made is not None:
            lines.append(f"    why: {made.describe()}")
    ctx.emit(chain, "\n".join(lines))
    return 0


def cmd_update(ctx: CommandContext) -> int:
    a = ctx.args
    if all(v is None for v in (a.content, a.type, a.scope, a.tags, a.project, a.confidence)):
        raise InvalidInputError(
            "nothing to update; give --content, --type, --scope, --tags, --project or --confidence"
        )
    memory = ctx.engine.update(
        a.memory_id,
        content=a.content,
        type=MemoryType(a.type) if a.type else None,
        scope=Scope(a.scope) if a.scope else None,
        tags=a.tags,
        project=a.project,
        confidence=_confidence(a.confidence),
    )
    ctx.emit(memory, f"updated: new version {memory.id} supersedes {memory.supersedes_id}")
    return 0


def cmd_forget(ctx: CommandContext) -> int:
    memory = ctx.engine.forget(ctx.args.memory_id)
    ctx.emit(memory, f"forgot {memory.id} (purge removes it for good)")
    return 0


def cmd_purge(ctx: CommandContext) -> int:
    if not ctx.args.yes:
        raise InvalidInputError(
            "purge deletes forgotten and archived memories for good; add --yes to confirm"
        )
    removed = ctx.engine.upkeep.purge()
    ctx.emit({"purged": removed}, f"purged {removed} forgotten or archived memories")
    return 0


def _confidence(value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"--confidence {value} is out of range; give a value from 0 to 1")
    return value


def _query(value: str) -> str:
    text = read_text_arg(value).strip()
    if not text:
        raise InvalidInputError("query is empty; give the words to recall for")
    return text
