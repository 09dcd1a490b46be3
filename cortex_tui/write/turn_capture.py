"""Capture: a conversation turn in, memories out, each through the write path.

Extraction uses the configured LLM when there is one; on any LLM failure it falls back to
the offline heuristic extractor and logs why, so capture never fails because a remote
service did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from cortex_tui.archive.writer import TurnToArchive
from cortex_tui.capture.heuristic import extract_heuristic, unfit
from cortex_tui.clock import Clock
from cortex_tui.config import PartsConfig, Settings
from cortex_tui.embed.base import Matrix
from cortex_tui.llm.base import LLMClient, LLMError
from cortex_tui.models import Candidate, MemoryDraft, WriteAction, WriteResult
from cortex_tui.spool.entries import CandidateFields
from cortex_tui.write.path import NOTHING_RELATED

log = logging.getLogger(__name__)


class CaptureOutcome(BaseModel):
    """What happened to one extracted candidate."""

    model_config = ConfigDict(extra="forbid")

    candidate: Candidate
    result: WriteResult | None = None
    skipped: str | None = None

    def describe(self) -> str:
        if self.result is None:
            return f"skipped ({self.skipped}): {self.candidate.content}"
        r = self.result
        related = r.related.short_id if r.related else ""
        verb = {
            WriteAction.CREATED: "stored",
            WriteAction.DUPLICATE: f"duplicate of {related}",
            WriteAction.REINFORCED: f"reinforced {related}",
            WriteAction.SUPERSEDED: f"superseded {related}",
            WriteAction.CONFLICT: f"conflict with {related}",
        }[r.action]
        line = f"{verb} → {r.memory.short_id}: {r.memory.content}"
        if r.reason and r.reason != NOTHING_RELATED:
            line += f"\n    why: {r.why()}"
        return line


class CaptureReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    extractor: str
    fallback_reason: str | None = None
    outcomes: list[CaptureOutcome]


Remember = Callable[[MemoryDraft, Candidate, Matrix | None], WriteResult]
"""Write one candidate's draft (with its vector, when the caller embedded a batch)."""


class CaptureProgress(Protocol):
    """Durable progress of one turn's capture, so a replay after a crash resumes it
    instead of writing it twice (the spool implements it)."""

    def saved_candidates(self) -> list[CandidateFields] | None: ...

    def save_candidates(self, candidates: list[CandidateFields]) -> None: ...

    def is_written(self, index: int) -> bool: ...

    def mark_written(self, index: int) -> None: ...


@dataclass
class PreparedTurn:
    """A turn's candidates, extracted (or read back from a capture a crash cut short)
    and not yet written: extraction needs no store, so it runs outside any lock."""

    project: str | None
    session_id: str | None
    source: str
    candidates: list[Candidate]
    extractor: str
    fallback_reason: str | None
    replay: bool
    skipped: dict[int, str] = field(default_factory=dict)
    """Candidates not to write, by index, with the reason."""
    place: tuple[int | None, set[str]] | None = None
    """Once writing began: the turn's position in its session, and the contents a
    replay found already stored for it."""
    outcomes: list[CaptureOutcome] = field(default_factory=list)
    """What became of each candidate so far, in order (a long turn is written in parts)."""
    said: TurnToArchive | None = None
    """The turn's messages for the archive (None: the archive is off)."""

    @property
    def finished(self) -> bool:
        return len(self.outcomes) == len(self.candidates)

    def report(self) -> CaptureReport:
        return CaptureReport(
            extractor=self.extractor, fallback_reason=self.fallback_reason, outcomes=self.outcomes
        )

    def to_write(self) -> list[int]:
        return [i for i in range(len(self.candidates)) if i not in self.skipped]

    def contents(self) -> list[str]:
        """What `to_write` stores, in that order: the rows of its vectors."""
        return [self.candidates[i].content for i in self.to_write()]


@dataclass
class Capturer:
    settings: Settings
    clock: Clock
    llm: LLMClient | None
    remember: Remember

    def prepare(
        self,
        text: str,
        *,
        project: str | None,
        session_id: str | None,
        source: str,
        progress: CaptureProgress | None = None,
    ) -> PreparedTurn:
        saved = progress.saved_candidates() if progress else None
        if saved is not None:
            # A replay: the candidates extracted before the crash, not a new extraction
            # (an LLM could extract differently the second time).
            candidates = [Candidate.model_validate(c) for c in saved]
            extractor, fallback = "replay", None
        else:
            candidates, extractor, fallback = self._extract(text, project)
            if progress:
                progress.save_candidates([c.model_dump(mode="json") for c in candidates])
        prepared = PreparedTurn(
            project, session_id, source, candidates, extractor, fallback, saved is not None
        )
        floor = self.settings.write.min_confidence
        for index, candidate in enumerate(candidates):
            why_not = unfit(candidate.content)
            if progress and progress.is_written(index):
                prepared.skipped[index] = "written before a restart"
            elif candidate.confidence < floor:
                prepared.skipped[index] = f"confidence {candidate.confidence:.2f}"
            elif why_not is not None:
                prepared.skipped[index] = why_not
        return prepared

    def write(
        self,
        prepared: PreparedTurn,
        *,
        vectors: Matrix | None = None,
        progress: CaptureProgress | None = None,
        enough: Callable[[], bool] = lambda: False,
    ) -> CaptureReport | None:
        """Write the prepared candidates not written yet (`prepared.place` must be set):
        `vectors` are the rows of `prepared.contents()`. Stops after the first candidate
        written once `enough()` says so and returns None; the report once the turn is
        finished."""
        turn, present = prepared.place or (None, set())
        rows = dict(zip(prepared.to_write(), vectors, strict=True)) if vectors is not None else {}
        while not prepared.finished:
            index = len(prepared.outcomes)
            candidate = prepared.candidates[index]
            reason = prepared.skipped.get(index)
            if reason is None and candidate.content.strip() in present:
                reason = "written before a restart"
            if reason is not None:
                prepared.outcomes.append(CaptureOutcome(candidate=candidate, skipped=reason))
                continue
            draft = MemoryDraft(
                content=candidate.content,
                type=candidate.type,
                scope=candidate.scope,
                project=prepared.project,
                tags=candidate.tags,
                confidence=candidate.confidence,
                session_id=prepared.session_id,
                turn=turn,
                said_in=prepared.said.ids if prepared.said is not None else [],
                source=prepared.source,
                valid_from=candidate.valid_at,
                corrects=candidate.corrects,
            )
            result = self.remember(draft, candidate, rows.get(index))
            prepared.outcomes.append(CaptureOutcome(candidate=candidate, result=result))
            if progress:
                progress.mark_written(index)
            if not prepared.finished and enough():
                return None
        return prepared.report()

    def _extract(self, text: str, project: str | None) -> tuple[list[Candidate], str, str | None]:
        if self.llm is not None:
            from cortex_tui.capture.llm_extract import extract_with_llm

            try:
                candidates = extract_with_llm(
                    self.llm, text, project=project, timeout=self.settings.llm.timeout
                )
                return candidates, self.llm.name, None
            except LLMError as exc:
                log.warning("LLM extraction failed, using the offline extractor: %s", exc)
                return extract_heuristic(text, now=self.clock()), "heuristic", str(exc)
        return extract_heuristic(text, now=self.clock()), "heuristic", None


def turn_vectors(
    prepared: Sequence[PreparedTurn],
    embed: Callable[[Sequence[str]], Matrix],
    config: PartsConfig,
) -> list[Matrix | None]:
    """Each turn's rows for its candidates (`PreparedTurn.contents`), from one model call
    over every candidate of the turns and every sentence their messages are archived
    by (`archive/writer.py`), which it hands them: a text both are made of (a candidate
    is often a sentence as said) is embedded once."""
    said = [turn.said for turn in prepared if turn.said is not None and not turn.said.embedded]
    texts = list(
        dict.fromkeys(
            [content for turn in prepared for content in turn.contents()]
            + [text for archived in said for text in archived.texts(config)]
        )
    )
    if not texts:
        return [None] * len(prepared)
    matrix = embed(texts)
    for archived in said:
        archived.take(texts, matrix, config)
    row_of = {text: index for index, text in enumerate(texts)}
    return [
        matrix[[row_of[content] for content in turn.contents()]] if turn.contents() else None
        for turn in prepared
    ]
