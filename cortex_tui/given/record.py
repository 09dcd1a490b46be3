"""One given record: what a caller was given, and why each memory in it was there.

Built from the block as it was given and the recall's ranked results: a memory line in
the block is matched to its result by the short id its label carries, so the record says
exactly what the agent read (a result the budget had no room for is "left out", never
"given"). Standing rules have no score: they are given whatever the prompt is.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cortex_tui.format import (
    PREAMBLE,
    STANDING_PREAMBLE,
    estimate_tokens,
    framed_block,
    line_memory_id,
    memory_line,
)
from cortex_tui.models import (
    HeldBack,
    Memory,
    MemoryType,
    Quote,
    RecallResult,
    ScoreBreakdown,
    UtcDatetime,
    new_id,
)

Block = Literal["standing", "recalled"]
Verdict = Literal["useful", "wrong"]
"""A person's judgement of a memory where a turn was given it."""
Outcome = Literal["nothing bore on it", "timed out", "no service"]
"""Why a prompt was given no memory: the relevance gate, or the hook that gave up."""
PROMPT_CHARS = 200
"""Characters of the prompt a record keeps: enough to tell the turn, not the whole paste."""
LEFT_OUT_CHARS = 160
"""Characters of a left-out memory's text a record keeps (it was never shown in full)."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GivenMemory(_Record):
    """One memory line of the block. `id` is the version's id (an update makes a new
    version with an id of its own, so it names exactly the text given)."""

    id: str
    block: Block
    type: MemoryType
    updated_at: UtcDatetime
    rank: int | None = Field(default=None, description="its rank in the recall (recalled only)")
    score: float | None = None
    breakdown: ScoreBreakdown | None = Field(
        default=None, description="the score's parts as computed on that turn (recalled only)"
    )

    @property
    def short_id(self) -> str:
        return self.id[:8]


class LeftOut(_Record):
    """A result the recall ranked that the block had no room for."""

    id: str
    rank: int
    score: float
    type: MemoryType
    text: str = Field(description=f"its first {LEFT_OUT_CHARS} characters")
    chars: int = Field(description="the characters its line would have taken")


class GivenRecord(_Record):
    """What one caller was given on one turn."""

    id: str = Field(default_factory=new_id)
    at: UtcDatetime
    agent: str = Field(description="claude, openclaw, mcp, or plain (any other caller)")
    trigger: str = Field(
        description="what asked: an agent's prompt, a session start (or a resume or a "
        "compaction, which also recall the last prompt), or a client's recall tool call: "
        "prompt, session start, resume, compact, recall"
    )
    session: str | None = None
    project: str | None = None
    prompt: str = Field(default="", description=f"the query's first {PROMPT_CHARS} characters")
    context: str = Field(description="the block as given, before the agent's own wrapping")
    max_chars: int | None = Field(default=None, description="the caller's cap on the block")
    budget_tokens: int | None = Field(
        default=None, description="the tokens the recalled block could take (none: no budget)"
    )
    used_tokens: int
    given: list[GivenMemory] = Field(default_factory=list)
    left_out: list[LeftOut] = Field(default_factory=list)
    held_back: list[HeldBack] = Field(
        default_factory=list,
        description="ranked memories the relevance gate kept out, each with why",
    )
    quotes: list[Quote] = Field(
        default_factory=list,
        description="the turn archive's sentences the block gave after the memories, each "
        "with how much it bore on the prompt",
    )
    outcome: Outcome | None = Field(
        default=None,
        description="why the prompt was given no memory, when it was given none: nothing "
        "bore on it (the gate held every ranked memory back), timed out, no service",
    )
    judged: dict[str, Verdict] = Field(
        default_factory=dict,
        description="a person's judgement of each memory given (its id → useful or wrong), "
        "attached when the record is read",
    )

    def line_of(self, memory: GivenMemory) -> str:
        """The memory's line as the block gave it ("" when it is not in the block)."""
        return next(
            (line for line in self.context.split("\n") if line_memory_id(line) == memory.short_id),
            "",
        )


def redacted(record: GivenRecord, clean: Callable[[str], str]) -> GivenRecord:
    """`record` with `clean` (the privacy step) applied to every text in it that came
    from a person or a memory: the prompt, the block, the left-out and held-back
    memories' starts, the sentence a breakdown names, and the session and project
    names. The rest are numbers, ids and names of our own."""
    given = [
        memory.model_copy(update={"breakdown": _clean_breakdown(memory.breakdown, clean)})
        for memory in record.given
    ]
    left_out = [
        memory.model_copy(update={"text": clean(memory.text)}) for memory in record.left_out
    ]
    held_back = [
        memory.model_copy(update={"text": clean(memory.text)}) for memory in record.held_back
    ]
    return record.model_copy(
        update={
            "prompt": clean(record.prompt),
            "context": clean(record.context),
            "session": clean(record.session) if record.session else record.session,
            "project": clean(record.project) if record.project else record.project,
            "given": given,
            "left_out": left_out,
            "held_back": held_back,
            "quotes": [
                quote.model_copy(update={"text": clean(quote.text)}) for quote in record.quotes
            ],
        }
    )


def _clean_breakdown(
    breakdown: ScoreBreakdown | None, clean: Callable[[str], str]
) -> ScoreBreakdown | None:
    if breakdown is None or not breakdown.matched_sentence:
        return breakdown
    return breakdown.model_copy(update={"matched_sentence": clean(breakdown.matched_sentence)})


class Asker(_Record):
    """Who asked for a context, and on what: the record's header."""

    agent: str
    trigger: str
    session: str | None = None
    project: str | None = None
    query: str = ""
    max_chars: int | None = None


@dataclass
class Given:
    """What a context was made of, gathered while it is put together: the block as
    given, the standing memories it offered and the recall's ranked results."""

    context: str = ""
    standing: list[Memory] = field(default_factory=list)
    recalled: list[RecallResult] = field(default_factory=list)
    held_back: list[HeldBack] = field(default_factory=list)
    """Ranked memories the relevance gate kept out."""
    quotes: list[Quote] = field(default_factory=list)
    """The turn archive's sentences the recall offered."""


def build_record(
    asker: Asker, at: datetime, given: Given, budget_tokens: int | None
) -> GivenRecord:
    """The record of what `asker` was given at `at`: each memory line of the block
    matched to the recall's result or the standing memory it shows; each recalled
    result not in the block (nor given by the standing block instead) is left out."""
    by_short = {result.memory.short_id: result for result in given.recalled}
    standing_by_short = {memory.short_id: memory for memory in given.standing}
    memories: list[GivenMemory] = []
    shown: set[str] = set()
    block: Block = "recalled"
    for line in given.context.split("\n"):
        if line == STANDING_PREAMBLE:
            block = "standing"
        elif line == PREAMBLE:
            block = "recalled"
        short = line_memory_id(line)
        if short is None or short in shown:
            continue
        shown.add(short)
        if block == "standing" and short in standing_by_short:
            memories.append(_standing(standing_by_short[short]))
        elif short in by_short:
            memories.append(_recalled(by_short[short]))
        elif short in standing_by_short:
            memories.append(_standing(standing_by_short[short]))
    left_out = [
        _left_out(result, at) for result in given.recalled if result.memory.short_id not in shown
    ]
    quotes = [quote for quote in given.quotes if quote.short_id in shown]
    return GivenRecord(
        at=at,
        agent=asker.agent,
        trigger=asker.trigger,
        session=asker.session,
        project=asker.project,
        prompt=asker.query[:PROMPT_CHARS],
        context=given.context,
        max_chars=asker.max_chars,
        budget_tokens=budget_tokens,
        used_tokens=estimate_tokens(given.context),
        given=memories,
        left_out=left_out,
        held_back=given.held_back,
        quotes=quotes,
        outcome="nothing bore on it" if given.held_back and not memories and not quotes else None,
    )


def results_block(results: Sequence[RecallResult], at: datetime) -> str:
    """Every result as the block's lines show it: what a client given the results
    themselves (an MCP recall) read, with no budget cutting any."""
    lines = (memory_line(result, at) for result in results)
    return framed_block(lines, PREAMBLE, budget_tokens=sys.maxsize)


def _recalled(result: RecallResult) -> GivenMemory:
    memory = result.memory
    return GivenMemory(
        id=memory.id,
        block="recalled",
        type=memory.type,
        updated_at=memory.updated_at,
        rank=result.rank,
        score=result.score,
        breakdown=result.breakdown,
    )


def _standing(memory: Memory) -> GivenMemory:
    return GivenMemory(
        id=memory.id, block="standing", type=memory.type, updated_at=memory.updated_at
    )


def _left_out(result: RecallResult, at: datetime) -> LeftOut:
    return LeftOut(
        id=result.memory.id,
        rank=result.rank,
        score=result.score,
        type=result.memory.type,
        text=result.memory.content[:LEFT_OUT_CHARS],
        chars=len(memory_line(result, at)) + 1,
    )
