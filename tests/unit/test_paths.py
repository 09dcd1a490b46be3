"""Where throwaway files go: a RAM folder with room, unless TMPDIR says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortex_tui import paths
from cortex_tui.paths import ram_folder


def test_the_ram_folder_is_used_only_with_room_and_without_a_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "RAM_FOLDER", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert ram_folder(0) is None  # TMPDIR chooses
    monkeypatch.delenv("TMPDIR")
    assert ram_folder(0) == str(tmp_path)
    assert ram_folder(1 << 62) is None  # no room
    monkeypatch.setattr(paths, "RAM_FOLDER", str(tmp_path / "no-such-folder"))
    assert ram_folder(0) is None
