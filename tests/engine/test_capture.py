"""Capture through the engine: offline by default, LLM when configured, and an LLM
failure falls back to the offline extractor with a logged reason, never a crash."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx2
import pytest

from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.models import WriteAction
from tests.conftest import NOW
from tests.llm.conftest import message

TURN = (
    "User: From now on we deploy atlas with Fly.io. Always run `make lint` before opening"
    " a pull request. Thanks!\n\n"
    "Assistant: Noted. I'll deploy with Fly.io and lint first."
)


def _anthropic(handler: object) -> AnthropicClient:
    transport = httpx2.MockTransport(handler)  # type: ignore[arg-type]
    return AnthropicClient(
        api_key="test-key", retries=0, http_client=httpx2.Client(transport=transport)
    )


def _engine_with(tmp_path: Path, embedder: Embedder, llm: AnthropicClient) -> LocalEngine:
    from cortex_tui.clock import frozen_clock

    return open_engine(load_settings(tmp_path), clock=frozen_clock(NOW), embedder=embedder, llm=llm)


def test_offline_capture_stores_durable_statements(engine: LocalEngine) -> None:
    report = engine.capture(TURN, project="atlas", session_id="s1")
    assert report.extractor == "heuristic"
    stored = [o.result.memory for o in report.outcomes if o.result]
    assert len(stored) == 2
    assert all(m.project == "atlas" and m.session_id == "s1" for m in stored)
    again = engine.capture(TURN, project="atlas")
    assert {o.result.action for o in again.outcomes if o.result} == {WriteAction.DUPLICATE}


def test_llm_failure_falls_back_with_a_logged_reason(
    tmp_path: Path, hashing_embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            500, json={"type": "error", "error": {"type": "api_error", "message": "boom"}}
        )

    eng = _engine_with(tmp_path, hashing_embedder, _anthropic(broken))
    try:
        with caplog.at_level(logging.WARNING):
            report = eng.capture(TURN, project="atlas")
        assert report.extractor == "heuristic"
        assert report.fallback_reason
        assert any("offline extractor" in r.getMessage() for r in caplog.records)
        assert [o for o in report.outcomes if o.result]
    finally:
        eng.close()


def test_llm_extraction_goes_through_the_sdk(tmp_path: Path, hashing_embedder: Embedder) -> None:
    seen: list[dict[str, object]] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        seen.append(body)
        text = json.dumps(
            [
                {
                    "content": "atlas is deployed with Fly.io",
                    "type": "fact",
                    "confidence": 0.9,
                    "tags": ["deploy"],
                    "entities": [{"name": "atlas", "type": "project"}],
                },
                {"content": "maybe Rust", "confidence": 0.2},
            ]
        )
        return httpx2.Response(200, json=message(f"```json\n{text}\n```"))

    eng = _engine_with(tmp_path, hashing_embedder, _anthropic(answer))
    try:
        report = eng.capture(TURN, project="atlas")
        assert report.extractor.startswith("anthropic")
        results = [o for o in report.outcomes if o.result]
        skipped = [o for o in report.outcomes if o.skipped]
        assert [o.result.memory.content for o in results if o.result] == [
            "atlas is deployed with Fly.io"
        ]
        assert len(skipped) == 1 and "confidence" in (skipped[0].skipped or "")
        assert seen and "From now on" in json.dumps(seen[0])
    finally:
        eng.close()


def test_what_an_llm_proposes_passes_the_offline_filters(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    proposed = [
        ("The atlas API listens on port 8443 behind Caddy.", None),
        ("Should the team move atlas to Kubernetes?", "a question"),
        ("The flaky login test is probably caused by a race in the fixture.", "a guess"),
        ("return cache.get(key) or load(key);", "code"),
        ("Atlas deploys", "a fragment"),
    ]
    body = json.dumps([{"content": c, "type": "fact", "confidence": 0.9} for c, _ in proposed])

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=message(body))

    eng = _engine_with(tmp_path, hashing_embedder, _anthropic(answer))
    try:
        report = eng.capture(TURN, project="atlas")
        assert [(o.candidate.content, o.skipped) for o in report.outcomes] == proposed
    finally:
        eng.close()


def test_the_extraction_prompt_reads_the_turn_by_who_said_it() -> None:
    from cortex_tui.capture.prompt import EXTRACTION_SYSTEM

    for instruction in ("who said it", "transient state", "correction", "what it replaced"):
        assert instruction in EXTRACTION_SYSTEM
