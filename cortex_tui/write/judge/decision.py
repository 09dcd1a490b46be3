"""The write path's judge: the rules first, a second opinion on close calls only.

The rules (`write/judge/contradiction.py`) read each pair's structure and the embeddings
settle their softer verdicts. A fold (a repeat or a restatement, folded into the old
memory) is the last resort: it stands only when both statements agree on every slot —
values, negation, modality, scope, polarity — whoever proposed it. Where the rules and
the embeddings disagree or a verdict sits near its threshold
(`write/judge/ambiguity.py`), a configured pair model (`write/judge/pair_model.py`) and then a
configured LLM (`write/judge/llm_judge.py`) may settle the call. Each is optional and each can
fail; a failure, a timeout or an unsure answer leaves the rules' decision, and the reason
says so. The LLM is asked within `write.judge_budget_ms` and at most
`write.judge_max_calls` times per statement, so a slow provider slows a write by a
bounded amount and never blocks it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cortex_tui.config import Settings, WritePathConfig
from cortex_tui.errors import ConfigError
from cortex_tui.llm.base import LLMClient, within_budget
from cortex_tui.models import RULES_JUDGE
from cortex_tui.write.judge.ambiguity import close_call
from cortex_tui.write.judge.contradiction import FOLDS, PairCall, Verdict, judge_offline, kept_apart
from cortex_tui.write.judge.llm_judge import JudgeLabel, judge_with_llm
from cortex_tui.write.judge.pair_model import PairModel
from cortex_tui.write.judge.statement import read

log = logging.getLogger(__name__)

Rules = Callable[[str, str], PairCall]

LLM_VERDICTS: dict[JudgeLabel, Verdict] = {
    "duplicate": "repeat",
    "reinforce": "restatement",
    "update": "update",
    "contradiction": "contradiction",
    "new": "distinct",
}


@dataclass(frozen=True, slots=True)
class Ruling:
    """The settled call on one neighbour ("distinct": another fact, with the reason)."""

    call: PairCall
    judge: str = RULES_JUDGE
    close_call: str | None = None

    @property
    def distinct(self) -> bool:
        return self.call.verdict == "distinct"


@dataclass
class StatementBudget:
    """What one statement may still spend on the LLM."""

    llm_calls: int


class WriteJudge:
    def __init__(
        self,
        config: WritePathConfig,
        *,
        llm: LLMClient | None = None,
        pair_model: PairModel | None = None,
        rules: Rules = judge_offline,
    ) -> None:
        self._config = config
        self._llm = llm if config.llm_judge else None
        self._pair_model = pair_model
        self._rules = rules

    def budget(self) -> StatementBudget:
        return StatementBudget(llm_calls=self._config.judge_max_calls)

    def rule(self, old: str, new: str, similarity: float, budget: StatementBudget) -> Ruling:
        """How `new` relates to the stored `old`, at this cosine: whoever decides, a fold
        stands only when the two agree on every slot (`write/judge/slots.py`)."""
        ruling = self._rule(old, new, similarity, budget)
        if ruling.call.verdict not in FOLDS:
            return ruling
        apart = kept_apart(old, new)
        if apart is None:
            return ruling
        if ruling.judge != RULES_JUDGE:
            apart = PairCall(apart.verdict, f"{apart.reason}; {ruling.judge} would fold it")
        return Ruling(apart, RULES_JUDGE, ruling.close_call)

    def _rule(self, old: str, new: str, similarity: float, budget: StatementBudget) -> Ruling:
        raw = self._rules(old, new)
        settled = settle(raw, similarity, self._config)
        close = close_call(raw, similarity, self._config)
        if close is None:
            return Ruling(settled)
        notes: list[str] = []
        second = self._pair_opinion(old, new, close, notes) or self._llm_opinion(
            old, new, close, budget, notes
        )
        if second is not None:
            return second
        if notes:
            settled = PairCall(settled.verdict, f"{settled.reason} ({'; '.join(notes)})")
        return Ruling(settled, RULES_JUDGE, close)

    def _pair_opinion(self, old: str, new: str, close: str, notes: list[str]) -> Ruling | None:
        model = self._pair_model
        if model is None:
            return None
        try:
            opinion = model.opinion(old, new)
        except ConfigError as exc:
            log.warning("pair model disabled until the next start: %s", exc)
            self._pair_model = None
            notes.append("the pair model failed to load")
            return None
        if opinion.probability < model.manifest.threshold:
            notes.append(f"pair model unsure: {opinion.describe()}")
            return None
        verdict = opinion.verdict
        cue = read(new).cue
        if verdict == "contradiction" and cue:
            verdict = "update"
        reason = f"pair model: {opinion.describe()}"
        if verdict == "update" and cue:
            reason += f", change cue '{cue}'"
        return Ruling(PairCall(verdict, reason), f"pair model {model.name}", close)

    def _llm_opinion(
        self, old: str, new: str, close: str, budget: StatementBudget, notes: list[str]
    ) -> Ruling | None:
        llm = self._llm
        seconds = self._config.judge_budget_ms / 1000
        if llm is None or seconds <= 0:
            return None
        if budget.llm_calls <= 0:
            notes.append("the LLM's calls for this statement are spent")
            return None
        budget.llm_calls -= 1
        answer, failure = within_budget(
            seconds, lambda: judge_with_llm(llm, new, old, timeout=seconds)
        )
        if answer is None:
            log.info("LLM judge skipped, the rules decide: %s", failure)
            notes.append(f"{llm.name}: {failure}")
            return None
        return Ruling(PairCall(LLM_VERDICTS[answer.label], answer.reason), llm.name, close)


class Bands(Protocol):
    """The thresholds that settle the rules' softer verdicts (`WritePathConfig` has
    them; a calibration tries others)."""

    @property
    def change_threshold(self) -> float: ...

    @property
    def elaborate_threshold(self) -> float: ...

    @property
    def restate_threshold(self) -> float: ...


def settle(judgement: PairCall, similarity: float, bands: Bands) -> PairCall:
    """The verdict once the embeddings have had their say."""
    floors: dict[str, tuple[Verdict, float, str]] = {
        "change": ("update", bands.change_threshold, "close in meaning"),
        "elaboration": ("paraphrase", bands.elaborate_threshold, "close in meaning"),
        "reworded": ("paraphrase", bands.elaborate_threshold, "close in meaning"),
        "paraphrase": ("paraphrase", bands.restate_threshold, ""),
    }
    if judgement.verdict not in floors:
        return judgement
    verdict, floor, note = floors[judgement.verdict]
    if similarity < floor:
        return PairCall("distinct", f"{judgement.reason}, but not close enough in meaning")
    return PairCall(verdict, f"{judgement.reason}, {note}" if note else judgement.reason)


def write_judge(settings: Settings, llm: LLMClient | None) -> WriteJudge:
    """The judge `settings.write` configures: its pair-model folder is checked now (a
    wrong path is an error at start, not a silent fallback), its model read on first use."""
    folder = settings.write.pair_model
    pair_model = PairModel(folder) if folder is not None else None
    return WriteJudge(settings.write, llm=llm, pair_model=pair_model)
