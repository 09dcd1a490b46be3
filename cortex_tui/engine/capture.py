"""Capture: a conversation turn in, memories out, each through the write path.

Extraction uses the configured LLM when there is one; on any LLM failure it falls back to
the offline heuristic extractor and logs why, so capture never fails because a remote
service did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from cortex_tui.capture.heuristic import extract_heuristic
from cortex_tui.clock import Clock
from cortex_tui.config import Settings
from cortex_tui.engine.write_path import NOTHING_RELATED
from cortex_tui.llm.base import LLMClient, LLMError
from cortex_tui.models import Candidate, MemoryDraft, WriteAction, WriteResult

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


Remember = Callable[[MemoryDraft, Candidate], WriteResult]


class CaptureProgress(Protocol):
    """Durable progress of one turn's capture, so a replay after a crash resumes it
    instead of writing it twice (the spool implements it)."""

    def saved_candidates(self) -> list[dict[str, Any]] | None: ...

    def save_candidates(self, candidates: list[dict[str, Any]]) -> None: ...

    def is_written(self, index: int) -> bool: ...

    def mark_written(self, index: int) -> None: ...


@dataclass
class Capturer:
    settings: Settings
    clock: Clock
    llm: LLMClient | None
    remember: Remember

    def capture(
        self,
        text: str,
        *,
        project: str | None,
        session_id: str | None,
        source: str,
        turn: int | None = None,
        progress: CaptureProgress | None = None,
    ) -> CaptureReport:
        """`turn` is the turn's position in its session, given to each of its memories."""
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
        outcomes: list[CaptureOutcome] = []
        floor = self.settings.write.min_confidence
        for index, candidate in enumerate(candidates):
            if progress and progress.is_written(index):
                outcomes.append(
                    CaptureOutcome(candidate=candidate, skipped="written before a restart")
                )
                continue
            if candidate.confidence < floor:
                outcomes.append(
                    CaptureOutcome(
                        candidate=candidate, skipped=f"confidence {candidate.confidence:.2f}"
                    )
                )
                continue
            draft = MemoryDraft(
                content=candidate.content,
                type=candidate.type,
                scope=candidate.scope,
                project=project,
                tags=candidate.tags,
                confidence=candidate.confidence,
                session_id=session_id,
                turn=turn,
                source=source,
                valid_from=candidate.valid_at,
            )
            outcomes.append(
                CaptureOutcome(candidate=candidate, result=self.remember(draft, candidate))
            )
            if progress:
                progress.mark_written(index)
        return CaptureReport(extractor=extractor, fallback_reason=fallback, outcomes=outcomes)

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
