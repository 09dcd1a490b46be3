"""Theme files: validation, and lookup from a source checkout and from an installed wheel."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from cortex_tui.tui import themes
from cortex_tui.tui.colours import DOMAIN_DEFAULTS
from cortex_tui.tui.themes import load_theme_file, load_themes, theme_dirs

REPO = Path(__file__).resolve().parents[2]


def test_shipped_themes_are_valid_dark_and_light() -> None:
    loaded, problems = load_themes([REPO / "themes"])
    assert problems == []
    assert len(loaded) >= 3
    assert {theme.dark for theme in loaded} == {True, False}
    for theme in loaded:
        assert set(DOMAIN_DEFAULTS) - {
            "diff-added",
            "diff-removed",
            "rank-up",
            "rank-down",
            "rank-new",
        } <= set(theme.variables)


def test_a_bad_colour_names_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text(
        'name = "x"\ndark = true\n[colors]\nprimary = "#fff"\n[variables]\nconflict = "nope"\n'
    )
    with pytest.raises(ValueError, match=r"x\.toml: variables"):
        load_theme_file(path)


@pytest.mark.parametrize("layout", ["checkout", "wheel"])
def test_themes_are_found_in_a_checkout_and_in_a_wheel(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "site" / "cortex_tui"
    package.mkdir(parents=True)
    target = tmp_path / "site" / "themes" if layout == "checkout" else package / "themes"
    shutil.copytree(REPO / "themes", target)
    monkeypatch.setattr(themes, "PACKAGE_DIR", package)
    assert theme_dirs(None) == [target]
    names = {theme.name for theme in load_themes(theme_dirs(None))[0]}
    assert "cortex-night" in names


def test_the_wheel_includes_the_themes_folder() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    force = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert force["themes"] == "cortex_tui/themes"
    assert themes.PACKAGE_DIR.name == "cortex_tui"


def test_user_themes_come_from_cortex_home(tmp_path: Path) -> None:
    (tmp_path / "themes").mkdir()
    assert tmp_path / "themes" in theme_dirs(tmp_path)
