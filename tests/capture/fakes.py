"""A scripted `LLMClient` for capture tests that need no HTTP at all."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FakeLLM:
    answer: str
    calls: list[tuple[str, str, int, float]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "fake:scripted"

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        self.calls.append((system, user, max_tokens, timeout))
        return self.answer
