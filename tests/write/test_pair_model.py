"""The opt-in pair-model slot: a tiny ONNX pair classifier the tests build themselves,
pointed at by `write.pair_model`, settling the write path's close calls only."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from onnx import TensorProto

from cortex_tui.clock import frozen_clock
from cortex_tui.config import WritePathConfig, load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine
from cortex_tui.errors import ConfigError
from cortex_tui.models import RULES_JUDGE, MemoryDraft, WriteAction
from cortex_tui.write.judge.contradiction import PairCall
from cortex_tui.write.judge.decision import WriteJudge
from cortex_tui.write.judge.pair_model import PairModel
from tests.conftest import NOW, Cli
from tests.write.test_write_judge import GO_NOW, RUBY, TRAIN, TRAIN_AGAIN
from tests.write.tiny_pair_model import write_pair_model

NLI = ("entailment", "neutral", "contradiction")
PRIYA = "Priya leads the platform team."
MARCO = "Marco leads the platform team."
MODEL = "pair model tiny-nli"


@pytest.fixture
def with_model(tmp_path: Path, onnx_embedder: Embedder) -> Iterator[Any]:
    opened: list[LocalEngine] = []

    def build(folder: Path) -> LocalEngine:
        settings = load_settings(tmp_path / f"home{len(opened)}")
        settings.write.pair_model = folder
        engine = open_engine(settings, clock=frozen_clock(NOW), embedder=onnx_embedder)
        opened.append(engine)
        return engine

    yield build
    for engine in opened:
        engine.close()


def remember(engine: LocalEngine, text: str) -> Any:
    return engine.remember(MemoryDraft(content=text, project="atlas"))


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param({}, id="symbolic-length"),
        pytest.param({"fixed_length": 24}, id="fixed-length"),
        pytest.param({"id_type": TensorProto.INT32, "type_ids": True}, id="int32-type-ids"),
    ],
)
def test_a_confident_model_settles_a_close_call(
    with_model: Any, tmp_path: Path, shape: dict[str, Any]
) -> None:
    folder = write_pair_model(tmp_path / "nli", NLI, {"alternate": {"entailment": 5.0}}, **shape)
    engine = with_model(folder)
    remember(engine, TRAIN)
    result = remember(engine, TRAIN_AGAIN)
    assert (result.action, result.judge) == (WriteAction.REINFORCED, MODEL)
    assert result.reason.startswith("pair model: entailment 0.99")
    assert "a close call for the rules" in result.reason


def test_the_model_can_call_a_close_pair_another_fact(with_model: Any, tmp_path: Path) -> None:
    engine = with_model(write_pair_model(tmp_path / "nli", NLI, {"marco": {"neutral": 5.0}}))
    remember(engine, PRIYA)
    result = remember(engine, MARCO)
    assert (result.action, result.judge) == (WriteAction.CREATED, MODEL)
    assert "pair model: neutral 0.99" in result.reason


def test_an_unsure_model_leaves_the_rules_decision(with_model: Any, tmp_path: Path) -> None:
    engine = with_model(write_pair_model(tmp_path / "nli", NLI, {"marco": {"neutral": 1.0}}))
    remember(engine, PRIYA)
    result = remember(engine, MARCO)
    assert (result.action, result.judge) == (WriteAction.CONFLICT, RULES_JUDGE)
    assert "pair model unsure: neutral 0.58" in result.reason


def test_a_clear_call_never_loads_the_model(
    with_model: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A model file that cannot load costs nothing until a close call needs it; then the
    rules decide, the log says why, and the slot stays off."""
    folder = write_pair_model(tmp_path / "nli", NLI, {"alternate": {"entailment": 5.0}})
    (folder / "model.onnx").write_bytes(b"not an onnx graph")
    engine = with_model(folder)
    with caplog.at_level(logging.WARNING):
        remember(engine, RUBY)
        assert remember(engine, GO_NOW).action is WriteAction.SUPERSEDED
        assert not caplog.records
        remember(engine, TRAIN)
        result = remember(engine, TRAIN_AGAIN)
    assert (result.action, result.judge) == (WriteAction.CREATED, RULES_JUDGE)
    assert "the pair model failed" in result.reason
    assert "cannot load the pair model" in caplog.text


def test_a_model_whose_outputs_do_not_fit_its_labels(
    with_model: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = write_pair_model(tmp_path / "nli", NLI, {"alternate": {"entailment": 5.0}}, scores=4)
    engine = with_model(folder)
    remember(engine, TRAIN)
    with caplog.at_level(logging.WARNING):
        assert remember(engine, TRAIN_AGAIN).judge == RULES_JUDGE
    assert "gives 4 scores but its manifest names 3 labels" in caplog.text


def test_contradiction_with_a_change_cue_is_an_update(tmp_path: Path) -> None:
    """NLI models cannot tell an update from a contradiction; the cue can."""
    model = PairModel(write_pair_model(tmp_path / "nli", NLI, {"9090": {"contradiction": 5.0}}))
    judge = WriteJudge(
        WritePathConfig(),
        pair_model=model,
        rules=lambda old, new: PairCall("paraphrase", "the same values in other words"),
    )
    ruling = judge.rule("The API listens on 8080.", "The API moved to 9090.", 0.62, judge.budget())
    assert ruling.call.verdict == "update" and ruling.judge == MODEL
    assert ruling.call.reason == "pair model: contradiction 0.99, change cue 'moved'"
    assert ruling.close_call is not None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing", "is not a folder"),
        ("no-tokenizer", "has no tokenizer.json"),
        ("bad-label", "label 'maybe' is not one the judge reads"),
        ("one-label", "manifest"),
        ("not-json", "is not a valid pair-model manifest"),
    ],
)
def test_a_wrong_folder_is_a_clear_error_at_start(
    tmp_path: Path, change: str, message: str
) -> None:
    folder = write_pair_model(tmp_path / "nli", NLI, {"x": {"neutral": 1.0}})
    if change == "missing":
        folder = tmp_path / "nowhere"
    elif change == "no-tokenizer":
        (folder / "tokenizer.json").unlink()
    elif change == "bad-label":
        (folder / "manifest.json").write_text('{"labels": ["entailment", "maybe"]}')
    elif change == "one-label":
        (folder / "manifest.json").write_text('{"labels": ["entailment"]}')
    else:
        (folder / "manifest.json").write_text("{labels")
    with pytest.raises(ConfigError, match=message):
        PairModel(folder)


def test_the_cli_names_a_wrong_pair_model_path(cli: Cli, tmp_path: Path) -> None:
    r = cli(
        "remember",
        "The CDN is Cloudflare.",
        env={"CORTEX_WRITE__PAIR_MODEL": str(tmp_path / "nowhere")},
    )
    assert r.code != 0
    assert "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert "write.pair_model" in r.err and "nowhere" in r.err
