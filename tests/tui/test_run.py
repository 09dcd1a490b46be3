"""`cortex-tui` with no arguments: a locked store is one line on stderr, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.open import open_engine
from cortex_tui.tui.run import main, parse


def test_a_locked_store_is_a_one_line_error(
    tmp_path: Path, hashing_embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    owner = open_engine(load_settings(home), embedder=hashing_embedder)
    try:
        code = main(["--home", str(home)])
    finally:
        owner.close()
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("cortex-tui: ") and "already open" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_demo_flag_is_parsed() -> None:
    assert parse(["--demo"]).demo is True
    assert parse([]).demo is False
