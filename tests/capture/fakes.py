"""A scripted `LLMClient` for capture tests that need no HTTP at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cortex_tui.llm.base import JsonTool


@dataclass
class FakeLLM:
    answer: str = ""
    json_answer: dict[str, Any] = field(default_factory=dict)
    calls: list[tuple[str, str, int, float]] = field(default_factory=list)
    tools: list[JsonTool] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "fake:scripted"

    def complete(self, system: str, user: str, max_tokens: int, timeout: float) -> str:
        self.calls.append((system, user, max_tokens, timeout))
        return self.answer

    def complete_json(
        self, system: str, user: str, tool: JsonTool, max_tokens: int, timeout: float
    ) -> dict[str, Any]:
        self.calls.append((system, user, max_tokens, timeout))
        self.tools.append(tool)
        return dict(self.json_answer)
