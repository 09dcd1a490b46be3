"""Starting the app: a locked store is one line on stderr; the demo in a real terminal."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.tui.latency import PseudoTerminal
from cortex_tui.tui.run import MODELS_ENV, open_demo_engine, parse


def test_a_store_that_cannot_open_is_named_in_the_app_and_in_one_line_on_exit(
    tmp_path: Path, hashing_embedder: Embedder
) -> None:
    """`cortex-tui` on a store another process owns: the app's first frame comes anyway,
    every pane says the store could not be opened and why; ctrl+q leaves with exit 1 and
    the reason as one line, no traceback."""
    home = tmp_path / "home"
    owner = open_engine(load_settings(home), embedder=hashing_embedder)
    command = [sys.executable, "-m", "cortex_tui", "--tui", "--home", str(home), "--no-daemon"]
    terminal = PseudoTerminal(command, env={MODELS_ENV: os.environ[MODELS_ENV]})
    try:
        terminal.wait_for(b"could not be opened")
        terminal.wait_for(b"in use by another")
        start = len(terminal.output)
    finally:
        terminal.close()
        owner.close()
    assert terminal.child.returncode == 1
    # What is left once the app has given the terminal back, escape sequences removed.
    after = re.sub(
        r"\x1b\[[0-9;?<]*[a-zA-Z]", "", terminal.output[start:].decode("utf-8", "replace")
    )
    (line,) = re.findall(r"cortex-tui: [^\r\n]*", after)
    assert "in use by another process" in line
    assert "Traceback" not in terminal.output.decode(errors="replace")


def test_demo_flag_is_parsed() -> None:
    assert parse(["--demo"]).demo is True
    assert parse([]).demo is False


def test_the_demo_runs_in_a_terminal_answers_a_query_and_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cortex-tui --demo` as a user runs it: a real process in a pseudo-terminal, keys
    typed, ctrl+q; its temporary home is gone afterwards."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    terminal = PseudoTerminal([sys.executable, "-m", "cortex_tui", "--demo"])
    try:
        terminal.wait_for(b"Query")  # the Recall pane's keys are in the footer
        terminal.type_query("which postgres version runs in prod")
        start = len(terminal.output)
        terminal.send("\r")
        terminal.wait_for(b" candidates", start=start)
        terminal.wait_for(b"PostgreSQL", start=start)
    finally:
        terminal.close()
    assert terminal.child.returncode == 0
    assert b"Traceback" not in terminal.output
    assert not list(tmp_path.glob("cortex-demo-*"))


def test_the_demo_engine_holds_the_demo_and_profiles_to_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path))
    engine = open_demo_engine(tmp_path)
    try:
        assert engine.overview.stats().total == 116
        assert set(engine.weight_profiles()) == {"default", "fresh-first", "meaning-only"}
        assert engine.weight_profiles()["meaning-only"].recency == 0
    finally:
        engine.close()
