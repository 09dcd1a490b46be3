"""Scoring what a later session was given, end to end.

For each probe: whether a memory line of the prompt's block states the label the probe
needs (matched as capture is: `SessionLabel.matches`), whether the session-start block
did, how many lines it took, and where a miss was lost — never stored, held back by the
relevance gate, left out by the budget, or ranked below what recall returns. For each
unrelated prompt: whether it was given any memory at all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cortex_tui.eval.sessions_dataset import SessionLabel
from cortex_tui.eval.sessions_score import where_it_went
from cortex_tui.format import estimate_tokens, line_memory_id, line_text
from cortex_tui.given.record import GivenRecord
from cortex_tui.models import Memory

NEVER_STORED = "not stored"
HELD_BACK = "held back by the gate"
LEFT_OUT = "left out by the budget"
RANKED_BELOW = "ranked below the results"
NO_CONTEXT = "no context (timed out or no service)"
LOSSES = (NEVER_STORED, HELD_BACK, LEFT_OUT, RANKED_BELOW, NO_CONTEXT)


@dataclass
class ProbeScore:
    """One prompt asked in a new session: a probe for `label`, or an unrelated prompt
    (`label` None)."""

    repo: str
    part: str
    prompt: str
    label: SessionLabel | None = None
    session: str | None = None
    """The session whose label the probe needs."""
    lines: list[str] = field(default_factory=list)
    """The memory lines of the prompt's block."""
    matching: int = 0
    at_start: bool = False
    """A memory line of the session-start block states the label."""
    tokens: int = 0
    lost: str | None = None
    why: str = ""
    hook_failures: list[str] = field(default_factory=list)

    @property
    def given(self) -> bool:
        return self.matching > 0

    @property
    def given_with_start(self) -> bool:
        return self.given or self.at_start


@dataclass
class GivenTotals:
    """Probes and unrelated prompts pooled (a part, a session, a label type, or all)."""

    probes: int = 0
    given: int = 0
    given_with_start: int = 0
    probe_lines: int = 0
    probe_matching: int = 0
    unrelated: int = 0
    unrelated_given: int = 0
    prompts: int = 0
    blocks: int = 0
    tokens: int = 0
    lost: Counter[str] = field(default_factory=Counter)

    def add(self, score: ProbeScore) -> None:
        self.prompts += 1
        self.tokens += score.tokens
        self.blocks += bool(score.lines)
        if score.label is None:
            self.unrelated += 1
            self.unrelated_given += bool(score.lines)
            return
        self.probes += 1
        self.given += score.given
        self.given_with_start += score.given_with_start
        self.probe_lines += len(score.lines)
        self.probe_matching += score.matching
        if score.lost is not None:
            self.lost[score.lost] += 1

    @property
    def tokens_a_block(self) -> float:
        """Tokens of a block given (prompts given nothing not counted)."""
        return self.tokens / self.blocks if self.blocks else 0.0

    @property
    def tokens_a_prompt(self) -> float:
        return self.tokens / self.prompts if self.prompts else 0.0


def memory_lines(block: str) -> list[str]:
    """The lines of a block that give a memory (not its frame)."""
    return [line for line in block.split("\n") if line_memory_id(line) is not None]


def score_probe(
    score: ProbeScore,
    start: str,
    block: str,
    current: list[Memory],
    versions: list[Memory],
    records: list[GivenRecord],
) -> ProbeScore:
    """`score` filled in from what the session was given (`start`, `block`), the store
    after the replay and the service's records of the session."""
    score.lines = memory_lines(block)
    score.tokens = estimate_tokens(block) if block else 0
    label = score.label
    if label is None:
        return score
    score.matching = sum(label.matches(line_text(line)) for line in score.lines)
    score.at_start = any(label.matches(line_text(line)) for line in memory_lines(start))
    if not score.given:
        score.lost, score.why = _where_lost(label, current, versions, records)
    return score


def _where_lost(
    label: SessionLabel, current: list[Memory], versions: list[Memory], records: list[GivenRecord]
) -> tuple[str, str]:
    stored = [memory for memory in current if label.matches(memory.content)]
    if not stored:
        return NEVER_STORED, where_it_went(label, current, versions)
    ids = {memory.id for memory in stored}
    prompt = next((r for r in records if r.trigger == "prompt"), None)
    if prompt is None:
        return NO_CONTEXT, "the prompt's hook recorded nothing"
    held = [m for m in prompt.held_back if m.id in ids]
    if held:
        return HELD_BACK, held[0].reason
    left = [m for m in prompt.left_out if m.id in ids]
    if left:
        return LEFT_OUT, f"rank {left[0].rank}, {left[0].chars} characters"
    return RANKED_BELOW, f"stored as {stored[0].short_id}: {stored[0].content[:120]}"
