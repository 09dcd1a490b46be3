"""The write path explains itself, and a configured LLM settles its close calls only:
the real engine on Qdrant Edge with the embedded model, and Claude through the real
`anthropic` SDK over a mock transport."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.llm.anthropic_client import AnthropicClient
from cortex_tui.models import RULES_JUDGE, MemoryDraft, WriteAction
from cortex_tui.store.base import MemoryFilter
from tests.conftest import NOW
from tests.llm.conftest import Reply, Script, message
from tests.llm.test_anthropic_judge import tool_answer

CLAUDE = "anthropic:claude-haiku-5-5"
# The rules find different claims; the embeddings put them 0.72 apart: a close call.
TRAIN = "The release train leaves every second Tuesday."
TRAIN_AGAIN = "We ship a release train on alternate Tuesdays."
# A change announced with a new value: the rules decide it alone.
RUBY = "The billing service is written in Ruby."
GO_NOW = "The billing service is now written in Go."
GO = "The billing service is written in Go."


def claude(script: Script, *, delay: float = 0.0) -> AnthropicClient:
    def handler(request: httpx2.Request) -> httpx2.Response:
        reply = script.next_reply(request.content, dict(request.headers))
        time.sleep(delay)
        if isinstance(reply, Exception):
            raise reply
        status, body, *_ = reply
        return httpx2.Response(status, json=body)

    return AnthropicClient(
        api_key="sk-ant-test",
        retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        sleep=script.sleeps.append,
    )


@pytest.fixture
def scripted(tmp_path: Path, onnx_embedder: Embedder) -> Iterator[Any]:
    opened: list[LocalEngine] = []

    def build(*replies: Reply, **write: Any) -> tuple[LocalEngine, Script]:
        script = Script(list(replies))
        delay = write.pop("delay", 0.0)
        settings = load_settings(tmp_path / f"home{len(opened)}")
        settings.write = settings.write.model_copy(update=write)
        engine = open_engine(
            settings,
            clock=frozen_clock(NOW),
            embedder=onnx_embedder,
            llm=claude(script, delay=delay),
        )
        opened.append(engine)
        return engine, script

    yield build
    for engine in opened:
        engine.close()


def remember(engine: LocalEngine, text: str) -> Any:
    return engine.remember(MemoryDraft(content=text, project="atlas"))


def test_a_close_call_goes_to_the_llm_and_its_reason_is_kept(scripted: Any) -> None:
    why = "Both say a release ships every other Tuesday."
    engine, script = scripted((200, tool_answer({"label": "reinforce", "reason": why})))
    first = remember(engine, TRAIN)
    result = remember(engine, TRAIN_AGAIN)
    assert len(script.requests) == 1
    assert (result.action, result.judge) == (WriteAction.REINFORCED, CLAUDE)
    assert result.reason.startswith(why.rstrip("."))
    assert "a close call for the rules: the rules find different claims" in result.reason
    stored = engine.get(first.memory.id)
    decision = stored.decisions[-1]
    assert (decision.action, decision.judge, decision.statement) == (
        WriteAction.REINFORCED,
        CLAUDE,
        TRAIN_AGAIN,
    )
    assert decision.reason == result.reason


def test_a_clear_call_never_reaches_the_llm(scripted: Any) -> None:
    engine, script = scripted((200, tool_answer({"label": "new", "reason": "unused"})))
    old = remember(engine, RUBY)
    result = remember(engine, GO_NOW)
    assert script.requests == []
    assert (result.action, result.judge) == (WriteAction.SUPERSEDED, RULES_JUDGE)
    assert "a change is announced ('now')" in result.reason
    history = engine.history(old.memory.id)
    assert history[-1].decisions[-1].reason == result.reason
    assert history[-1].decisions[-1].related_id == old.memory.id


REFUSAL = message(content=[], stop_reason="refusal", stop_details=None)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        pytest.param((200, REFUSAL), "declined the request", id="refusal"),
        pytest.param((200, message('{"label": "reinforce"')), "malformed JSON", id="malformed"),
        pytest.param(
            (200, tool_answer({"label": "same", "reason": "x"})), "not one of", id="bad-label"
        ),
        pytest.param((529, {"type": "error"}), "overloaded", id="overloaded"),
        pytest.param(httpx2.ReadTimeout("timed out"), "did not answer", id="timeout"),
    ],
)
def test_the_rules_decide_when_the_llm_fails(scripted: Any, reply: Reply, why: str) -> None:
    engine, script = scripted(reply)
    remember(engine, TRAIN)
    result = remember(engine, TRAIN_AGAIN)
    assert len(script.requests) == 1
    assert (result.action, result.judge) == (WriteAction.CREATED, RULES_JUDGE)
    assert "is another fact" in result.reason
    assert CLAUDE in result.reason and why in result.reason
    assert result.memory.decisions[-1].reason == result.reason


def test_a_slow_llm_does_not_hold_the_write_past_its_budget(scripted: Any) -> None:
    late = (200, tool_answer({"label": "reinforce", "reason": "too late"}))
    engine, _ = scripted(late, judge_budget_ms=100, delay=1.0)
    remember(engine, TRAIN)
    result = remember(engine, TRAIN_AGAIN)
    assert (result.action, result.judge) == (WriteAction.CREATED, RULES_JUDGE)
    assert "no answer within 0.1 s" in result.reason


def test_the_llm_is_asked_at_most_the_configured_times(scripted: Any) -> None:
    engine, script = scripted(
        (200, tool_answer({"label": "new", "reason": "another fact"})), judge_max_calls=0
    )
    remember(engine, TRAIN)
    result = remember(engine, TRAIN_AGAIN)
    assert script.requests == []
    assert "calls for this statement are spent" in result.reason


def test_the_llm_judge_can_be_turned_off(scripted: Any) -> None:
    engine, script = scripted((200, tool_answer({"label": "new", "reason": "x"})), llm_judge=False)
    remember(engine, TRAIN)
    assert remember(engine, TRAIN_AGAIN).judge == RULES_JUDGE
    assert script.requests == []


def test_a_conflict_is_journalled_with_its_reason_and_undo_names_it(scripted: Any) -> None:
    engine, _ = scripted((200, tool_answer({"label": "new", "reason": "unused"})))
    remember(engine, RUBY)
    result = remember(engine, GO)
    assert result.action is WriteAction.CONFLICT
    assert result.memory.last_decision(WriteAction.CONFLICT) is not None
    [undone] = engine.curation.undo(1)
    assert undone.action == "capture:conflict"
    assert undone.payload["note"] == f"conflict: {result.reason}"
    assert "same claim, a different value: Ruby → Go" in undone.payload["note"]


def test_decisions_survive_export_and_import(
    scripted: Any, tmp_path: Path, onnx_embedder: Embedder
) -> None:
    engine, _ = scripted((200, tool_answer({"label": "reinforce", "reason": "same train"})))
    remember(engine, TRAIN)
    remember(engine, TRAIN_AGAIN)
    remember(engine, RUBY)
    remember(engine, GO_NOW)
    lines = list(engine.export())
    copy = open_engine(
        load_settings(tmp_path / "copy"), clock=frozen_clock(NOW), embedder=onnx_embedder
    )
    try:
        copy.upkeep.import_lines(lines)
        assert list(copy.export()) == lines
        decided = [m for m in copy.list_memories(MemoryFilter(), limit=50).memories if m.decisions]
        assert {d.judge for m in decided for d in m.decisions} == {CLAUDE, RULES_JUDGE}
    finally:
        copy.close()
