"""The architecture page's map is the tree: every package named, each in the layer the
import-linter contract gives it, so the map a newcomer reads first cannot drift."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "cortex_tui"
MAP_ROW = re.compile(r"^\| (\d+) \| `([\w.]+)/?` \|", re.MULTILINE)


def architecture_section() -> str:
    return (PACKAGE / "docs" / "architecture.md").read_text(encoding="utf-8")


def map_layers() -> dict[str, int]:
    """Package name -> layer number, as the map gives them."""
    rows = MAP_ROW.findall(architecture_section())
    names = [name for _, name in rows]
    assert len(names) == len(set(names)), f"named twice in the map: {sorted(names)}"
    return {name: int(layer) for layer, name in rows}


def contract_layers() -> dict[str, int]:
    """Package name -> layer number (from 1, the top), as `lint-imports` enforces them."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    numbered: dict[str, int] = {}
    for number, layer in enumerate(layers, start=1):
        for module in re.split(r"[|:]", layer):
            numbered[module.strip().removeprefix("cortex_tui.")] = number
    return numbered


def packages_in_tree() -> set[str]:
    """Every subpackage and top-level module of cortex_tui."""
    found = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    found |= {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    return found


def test_the_map_names_every_package_in_the_tree_and_nothing_else() -> None:
    named = set(map_layers())
    assert packages_in_tree() - named == set(), "packages the architecture map lacks"
    assert named - packages_in_tree() == set(), "names in the map that are not packages"


def test_each_package_sits_in_the_map_where_the_layers_contract_puts_it() -> None:
    contract = contract_layers()
    assert packages_in_tree() - set(contract) == set(), "packages in no import-linter layer"
    misplaced = {
        name: (layer, contract.get(name))
        for name, layer in map_layers().items()
        if contract.get(name) != layer
    }
    assert misplaced == {}, "(map layer, contract layer) differ"
