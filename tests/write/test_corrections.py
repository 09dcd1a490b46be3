"""A person's correction is an update of what it corrects, never a conflict beside it;
the same words said without correcting anything are judged as any other statement."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.models import Memory, MemoryDraft, WriteAction, WriteResult
from cortex_tui.store.base import MemoryFilter
from cortex_tui.write.judge.correction import corrected_value, stated_in, wrong_values
from tests.engine.test_capture import _anthropic, _engine_with
from tests.llm.conftest import message


def _said(engine: LocalEngine, user: str) -> WriteResult:
    """What became of the one memory capture keeps from a turn where the user says `user`."""
    report = engine.capture(f"User: {user}\n\nAssistant: Understood.", project="atlas")
    [result] = [o.result for o in report.outcomes if o.result]
    return result


def _current(engine: LocalEngine) -> list[Memory]:
    return engine.list_memories(MemoryFilter()).memories


@pytest.mark.parametrize(
    ("lead", "action"),
    [("That's wrong: t", WriteAction.SUPERSEDED), ("T", WriteAction.CONFLICT)],
)
def test_a_correction_updates_what_it_contradicts(
    onnx_engine: LocalEngine, lead: str, action: WriteAction
) -> None:
    old = onnx_engine.remember(
        MemoryDraft(content="Tests run with pytest -x before each commit.", project="atlas")
    ).memory
    result = _said(onnx_engine, f"{lead}ests run with pytest -q before each commit.")
    assert result.action is action
    assert result.related is not None and result.related.id == old.id
    current = {m.content for m in _current(onnx_engine)}
    if action is WriteAction.SUPERSEDED:
        assert "the person corrected it" in (result.reason or "")
        assert current == {"Tests run with pytest -q before each commit."}
        assert [m.id for m in onnx_engine.history(result.memory.id)] == [old.id, result.memory.id]
    else:
        assert len(current) == 2


@pytest.mark.parametrize(
    ("lead", "action"), [("No, use", WriteAction.SUPERSEDED), ("Use", WriteAction.CREATED)]
)
def test_a_correction_updates_the_memory_that_states_what_it_names_wrong(
    onnx_engine: LocalEngine, lead: str, action: WriteAction
) -> None:
    old = onnx_engine.remember(
        MemoryDraft(content="The project installs packages with npm.", project="atlas")
    ).memory
    result = _said(onnx_engine, f"{lead} pnpm to install packages, not npm.")
    assert result.action is action
    if action is WriteAction.SUPERSEDED:
        assert result.related is not None and result.related.id == old.id
        assert "the person corrected it: not npm" in (result.reason or "")
    else:
        assert old.id in {m.id for m in _current(onnx_engine)}


def test_a_correction_leaves_memories_about_something_else(onnx_engine: LocalEngine) -> None:
    """A memory that merely mentions the wrong value, about another matter, stays."""
    other = onnx_engine.remember(
        MemoryDraft(content="The release job publishes packages to the npm registry.")
    ).memory
    result = _said(onnx_engine, "No, use pnpm to install packages, not npm.")
    assert result.action is WriteAction.CREATED
    assert other.id in {m.id for m in _current(onnx_engine)}


def test_an_llm_marked_correction_updates_too(tmp_path: Path, hashing_embedder: Embedder) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        proposed = [
            {
                "content": "Tests run with pytest -q before each commit.",
                "type": "rule",
                "confidence": 0.9,
                "corrects": True,
            }
        ]
        return httpx2.Response(200, json=message(json.dumps(proposed)))

    eng = _engine_with(tmp_path, hashing_embedder, _anthropic(answer))
    try:
        eng.remember(MemoryDraft(content="Tests run with pytest -x before each commit."))
        report = eng.capture("User: no, -q.\n\nAssistant: Understood.")
        [outcome] = report.outcomes
        assert outcome.candidate.corrects
        assert outcome.result is not None and outcome.result.action is WriteAction.SUPERSEDED
    finally:
        eng.close()


@pytest.mark.parametrize(
    ("correction", "named"),
    [
        ("Use pnpm to install packages, not npm.", ["npm"]),
        ("Use ruff instead of flake8 and black.", ["flake8"]),
        ("Never use `git push --force` on main.", ["git push --force"]),
        ("Tests run with pytest -q, never -x.", ["-x"]),
        ("That is not a problem.", []),
        ("Keep it simple rather than clever.", ["clever"]),
    ],
)
def test_what_a_correction_names_as_wrong(correction: str, named: list[str]) -> None:
    assert wrong_values(correction) == named


def test_a_memory_states_a_value_unless_it_avoids_it() -> None:
    assert stated_in("npm", "The project installs packages with npm.")
    assert not stated_in("npm", "Use pnpm, not npm.")
    assert not stated_in("npm", "Packages are installed with pnpm.")  # a word, not a substring
    assert (
        corrected_value("Deploy to staging, not production directly.", "CI deploys to production.")
        == "production"
    )
