"""`--set` and `--variant`: one ingested store per dataset, one recall pass per variant."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

SYNTHETIC = Path(__file__).resolve().parents[1] / "data" / "locomo" / "synthetic-conversations.json"
# One candidate from one channel: whatever ranks first is all a query gets.
NARROW = "recall.dense_candidates=1,recall.lexical_candidates=0,recall.graph_candidates=0"


def _figures(variant: dict[str, Any]) -> dict[str, Any]:
    return {
        "overall": variant["overall"],
        "by_category": variant["by_category"],
        "datasets": variant["datasets"],
    }


def _eval(cli: Cli, *args: str) -> dict[str, Any]:
    r = cli("eval", str(SYNTHETIC), "--json", *args)
    assert r.code == 0, r.err
    report: dict[str, Any] = json.loads(r.out)
    return report


def test_a_variant_that_changes_nothing_reports_the_base_figures(cli: Cli) -> None:
    report = _eval(
        cli,
        "--variant",
        "narrow:" + NARROW,
        "--variant",
        "same:recall.fusion=weighted,recall.lexical_weight=0.6",
        "--variant",
        "empty:",
    )
    base, narrow, same, empty = report["variants"]
    assert [v["name"] for v in report["variants"]] == ["base", "narrow", "same", "empty"]
    assert same["changes"] == {"recall.fusion": "weighted", "recall.lexical_weight": "0.6"}
    # Ranked after a variant that changed ranking, on the same store: nothing carried over.
    assert _figures(same) == _figures(base)
    assert _figures(empty) == _figures(base)
    # The top level is still the base run (the format before variants existed).
    assert report["overall"]["recall_at"] == base["overall"]["recall_at"]
    # The narrow variant really ranked with its own settings: one result per query.
    assert narrow["overall"]["recall_at"]["50"] == narrow["overall"]["recall_at"]["5"]
    assert narrow["overall"]["recall_at"]["50"] < base["overall"]["recall_at"]["50"]
    assert set(report["timing"]["variant_seconds"]) == {"base", "narrow", "same", "empty"}


def test_set_changes_the_whole_run(cli: Cli) -> None:
    base = _eval(cli)
    narrowed = _eval(cli, *[arg for key in NARROW.split(",") for arg in ("--set", key)])
    assert narrowed["variants"][0]["changes"]["recall.dense_candidates"] == "1"
    assert narrowed["overall"]["recall_at"]["50"] == narrowed["overall"]["recall_at"]["5"]
    assert narrowed["overall"]["recall_at"]["50"] < base["overall"]["recall_at"]["50"]
    # A variant starts from the run's settings: widening back restores the base figures.
    widened = _eval(
        cli,
        "--set",
        "recall.dense_candidates=1",
        "--variant",
        "wide:recall.dense_candidates=50",
    )
    assert _figures(widened["variants"][1]) == _figures(base["variants"][0])


def test_by_category_shows_every_variant_in_text(cli: Cli) -> None:
    r = cli("eval", str(SYNTHETIC), "--variant", "dense:recall.fusion=dense", "--by-category")
    assert r.code == 0, r.err
    assert "base by category" in r.out and "dense by category" in r.out
    assert "dense: recall.fusion=dense" in r.out
    without = cli("eval", str(SYNTHETIC), "--variant", "dense:recall.fusion=dense")
    assert "by category" not in without.out
    rows = [line.split()[0] for line in without.out.splitlines() if line.split()]
    assert "base" in rows and "dense" in rows


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "recall.lexical_wieght=0.3"], "did you mean recall.lexical_weight?"),
        (["--set", "recall.lexical_weight=2"], "invalid value '2' for recall.lexical_weight"),
        (["--set", "recall.weights=0"], "recall.weights is a section"),
        (["--set", "llm.provider=anthropic"], "keys start with recall or embedder"),
        (["--set", "recall.fusion"], "give key=value"),
        (["--variant", "dense"], "give NAME:key=value"),
        (["--variant", "x:embedder.kind=hashing"], "variants share one ingested store"),
        (["--variant", "base:recall.fusion=rrf"], "is given twice"),
        (["--variant", "x:recall.fusion=bm25"], "--variant x: invalid value 'bm25'"),
    ],
)
def test_bad_settings_fail_in_one_line(cli: Cli, args: list[str], message: str) -> None:
    r = cli("eval", str(SYNTHETIC), *args)
    assert r.code == 2, r.out
    assert message in r.err and r.err.count("\n") == 1, r.err
    assert r.out == ""


def test_progress_is_drawn_on_a_terminal_and_never_with_json(tmp_path: Path) -> None:
    def run(*args: str) -> tuple[str, str]:
        controller, terminal = pty.openpty()
        drawn: list[bytes] = []

        def read_terminal() -> None:  # concurrently: a full terminal buffer would block
            while True:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the other end is closed: everything is read
                    return
                if not chunk:
                    return
                drawn.append(chunk)

        reader = threading.Thread(target=read_terminal)
        reader.start()
        env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
        env |= {"CORTEX_DAEMON": "0", "CORTEX_EMBEDDER__KIND": "hashing"}
        command = [sys.executable, "-m", "cortex_tui", "--home", str(tmp_path), "eval"]
        try:
            proc = subprocess.run(
                [*command, str(SYNTHETIC), "--variant", "dense:recall.fusion=dense", *args],
                stderr=terminal,
                stdout=subprocess.PIPE,
                env=env,
                timeout=120,
                check=True,
            )
        finally:
            os.close(terminal)
            reader.join(timeout=10)
            os.close(controller)
        return proc.stdout.decode(), b"".join(drawn).decode()

    out, drawn = run()
    assert "] 13/13 base · syn-1" in drawn  # adversarial questions are ranked too
    assert "] 5/5 dense · syn-2" in drawn
    assert "] 21/21 embedding syn-1 memories" in drawn
    assert drawn.endswith("\r\x1b[K")  # the bar is cleared before the tables
    assert "\r" not in out and out.startswith("dataset")
    out, drawn = run("--json")
    assert drawn == "" and json.loads(out)["variants"][1]["name"] == "dense"
