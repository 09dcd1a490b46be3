"""`cortex-tui model add | list | remove` and moving a store between models, as a user runs
them: real subprocesses, real stores, a tiny model folder the test writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cortex_tui.recall import gate_calibration
from tests.conftest import Cli
from tests.embed.tiny_models import write_tiny_model


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The models folder is the suite's shared one (the default model is made once), so
    each test adds its model under a name no other test uses."""
    return Cli(tmp_path / "home", embedder=None)


def test_add_list_and_remove(cli: Cli, tmp_path: Path) -> None:
    folder = write_tiny_model(tmp_path / "tiny-mpnet", "mpnet")
    added = cli("model", "add", str(folder))
    assert added.code == 0, added.err
    assert "added tiny-mpnet: mpnet, 32-d, int8, mean pooling" in added.out
    assert "cortex-tui reembed --to tiny-mpnet" in added.out
    assert "write-path thresholds for its cosines: duplicate " in added.out
    assert "relevance gate: its cosines on the reference model's scale" in added.out

    listed = json.loads(cli("model", "list", "--json").out)
    by_name = {row["name"]: row for row in listed}
    assert by_name["all-MiniLM-L6-v2"]["in_use"] is True
    assert by_name["tiny-mpnet"]["dimension"] == 32
    assert by_name["tiny-mpnet"]["embedder"].startswith("onnx:tiny-mpnet@int8:")
    thresholds = by_name["tiny-mpnet"]["write_thresholds"]
    assert set(thresholds) == {
        "duplicate_threshold",
        "related_threshold",
        "restate_threshold",
        "elaborate_threshold",
        "change_threshold",
    }
    assert 0 < thresholds["related_threshold"] <= thresholds["duplicate_threshold"] <= 1
    # The relevance gate's scale for its cosines is made with it and kept beside.
    models = Path(cli("model", "list").out.splitlines()[0].removeprefix("models folder: "))
    embedder = by_name["tiny-mpnet"]["embedder"]
    scale = gate_calibration.stored(models, embedder)
    assert (
        scale is not None and scale.reference == gate_calibration.gate_pairs().reference_percentiles
    )

    again = cli("model", "add", str(folder))
    assert again.code == 2 and "--replace" in again.err

    removed = cli("model", "remove", "tiny-mpnet")
    assert removed.code == 0, removed.err
    names = {row["name"] for row in json.loads(cli("model", "list", "--json").out)}
    assert "tiny-mpnet" not in names
    assert gate_calibration.stored(models, embedder) is None


def test_a_bad_folder_is_one_line_and_adds_nothing(cli: Cli, tmp_path: Path) -> None:
    folder = write_tiny_model(tmp_path / "tiny-no-tokenizer", "bert")
    (folder / "tokenizer.json").unlink()
    result = cli("model", "add", str(folder))
    assert result.code == 1
    assert result.err.strip().count("\n") == 0
    assert "tokenizer.json is missing" in result.err and "Traceback" not in result.err
    assert "tiny-no-tokenizer" not in cli("model", "list").out


def test_reembed_moves_the_store_and_recall_refuses_to_mix(cli: Cli, tmp_path: Path) -> None:
    assert cli("remember", "use pnpm not npm in this repository").code == 0
    assert cli("model", "add", str(write_tiny_model(tmp_path / "tiny", "bert"))).code == 0

    mixed = cli("recall", "pnpm", env={"CORTEX_EMBEDDER__MODEL": "tiny"})
    assert mixed.code == 1
    assert "vectors of two models never mix" in mixed.err
    assert "cortex-tui reembed --to MODEL" in mixed.err

    moved = cli("reembed", "--to", "tiny")
    assert moved.code == 0, moved.err
    assert "onnx:all-MiniLM-L6-v2@int8:" in moved.out and "onnx:tiny@int8:" in moved.out
    assert 'model = "tiny"' in (cli.home / "config.toml").read_text()
    recalled = cli("recall", "pnpm", "--json")
    assert recalled.code == 0, recalled.err
    assert [r["memory"]["content"] for r in json.loads(recalled.out)["results"]] == [
        "use pnpm not npm in this repository"
    ]
    assert "onnx:tiny@int8:" in cli("stats").out

    blocked = cli("model", "remove", "tiny")
    assert blocked.code == 2 and "configured embedder.model" in blocked.err


def test_a_store_made_with_the_packaged_file_keeps_working_and_says_how_to_move_on(
    cli: Cli,
) -> None:
    packaged = {"CORTEX_EMBEDDER__MODEL": "all-MiniLM-L6-v2-packaged"}
    assert cli("remember", "we ship on friday", env=packaged).code == 0
    assert "onnx:all-MiniLM-L6-v2-int8 " in cli("stats", env=packaged).out

    recalled = cli("recall", "when do we ship")
    assert recalled.code == 0, recalled.err
    assert "we ship on friday" in recalled.out
    assert "cortex-tui reembed --to all-MiniLM-L6-v2" in recalled.err
    assert json.loads(cli("recall", "ship", "--json").out)["notices"]

    assert cli("reembed", "--to", "all-MiniLM-L6-v2").code == 0
    after = cli("recall", "when do we ship")
    assert "we ship on friday" in after.out and after.err == ""
    assert "onnx:all-MiniLM-L6-v2@int8:" in cli("stats").out
