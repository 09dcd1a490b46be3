"""Recall step 6: an LLM re-ranks a close top-4 within its budget, through the real
Anthropic SDK on a mock transport; a slow or failing LLM leaves the order alone."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx2

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.models import MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.recall.rerank import parse_order
from tests.conftest import NOW


def _answer(text: str, delay: float = 0.0):  # type: ignore[no-untyped-def]
    def handler(request: httpx2.Request) -> httpx2.Response:
        time.sleep(delay)
        body = json.loads(request.content)
        return httpx2.Response(
            200,
            json={
                "id": "msg",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        )

    return handler


def _ranked(tmp_path: Path, embedder: Embedder, handler, budget: int | None):  # type: ignore[no-untyped-def]
    client = AnthropicClient(
        api_key="k", retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    engine = open_engine(
        load_settings(tmp_path), clock=frozen_clock(NOW), embedder=embedder, llm=client
    )
    try:
        for colour in ("red", "blue", "green", "amber"):
            engine.remember(MemoryDraft(content=f"The deploy light turns {colour} on release"))
        request = RecallRequest(
            query="deploy light release", limit=4, update_access=False, rerank_budget_ms=budget
        )
        return engine.recall(request).results
    finally:
        engine.close()


def test_llm_reorders_a_close_top_four(tmp_path: Path, hashing_embedder: Embedder) -> None:
    before = _ranked(tmp_path / "a", hashing_embedder, _answer("x"), 0)
    after = _ranked(tmp_path / "b", hashing_embedder, _answer("4, 3, 2, 1"), None)
    assert [r.memory.content for r in after] == [r.memory.content for r in reversed(before)]
    assert [r.rank for r in after] == [1, 2, 3, 4]
    assert [r.reranked_from for r in after] == [4, 3, 2, 1]


def test_slow_llm_keeps_the_multifactor_order(tmp_path: Path, hashing_embedder: Embedder) -> None:
    before = _ranked(tmp_path / "a", hashing_embedder, _answer("x"), 0)
    slow = _ranked(tmp_path / "b", hashing_embedder, _answer("4,3,2,1", delay=1.0), 100)
    assert [r.memory.content for r in slow] == [r.memory.content for r in before]
    assert all(r.reranked_from is None for r in slow)


def test_parse_order() -> None:
    assert parse_order("2, 1", 4) == [1, 0, 2, 3]
    assert parse_order("[3] then [3] then 9", 4) == [2, 0, 1, 3]
    assert parse_order("none of them", 4) is None
