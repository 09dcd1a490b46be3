"""The TUI's own corner of `config.toml`: the chosen theme and key remapping.

```toml
[tui]
theme = "cortex-dawn"

[tui.keymap]
"recall.compare" = "ctrl+k"     # binding id = key(s), comma separated
```

Read with tomllib here (the engine's `Settings` ignores the `[tui]` table), so the engine
never needs to know about themes or keys. A broken file yields defaults and a reason.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cortex_tui.errors import ConfigError


@dataclass(frozen=True)
class Preferences:
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_preferences(home: Path) -> Preferences:
    """The `[tui]` table of `home/config.toml`; problems are reported, never raised."""
    path = home / "config.toml"
    if not path.exists():
        return Preferences()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Preferences(problems=[f"{path}: {exc}; using default theme and keys"])
    table = data.get("tui", {})
    if not isinstance(table, dict):
        return Preferences(problems=[f"{path}: [tui] must be a table"])
    problems: list[str] = []
    theme = table.get("theme")
    if theme is not None and not isinstance(theme, str):
        problems.append(f"{path}: tui.theme must be a string")
        theme = None
    return Preferences(
        theme=theme, keymap=_keymap(table.get("keymap", {}), path, problems), problems=problems
    )


def _keymap(raw: Any, path: Path, problems: list[str]) -> dict[str, str]:
    if not isinstance(raw, dict):
        problems.append(f"{path}: [tui.keymap] must be a table of binding id = keys")
        return {}
    keymap: dict[str, str] = {}
    for binding_id, keys in raw.items():
        if isinstance(keys, str) and keys.strip():
            keymap[binding_id] = keys
        else:
            problems.append(f"{path}: tui.keymap.{binding_id} must be a key string like 'ctrl+k'")
    # An old id stands for its new one, unless the new one is there too.
    return {
        _current_id(binding_id): keys
        for binding_id, keys in keymap.items()
        if _current_id(binding_id) == binding_id or _current_id(binding_id) not in keymap
    }


RENAMED_IDS = {"app.pane.turns": "app.pane.given", "turns.": "given."}
"""Binding ids (and id starts) of the Given pane up to 0.1.0, when it was called Turns: a
keymap written then keeps moving its keys for one release."""


def _current_id(binding_id: str) -> str:
    for old, new in RENAMED_IDS.items():
        if binding_id.startswith(old):
            return new + binding_id.removeprefix(old)
    return binding_id


def remember_theme(home: Path, name: str) -> str | None:
    """Persist the theme choice; the reason when it could not be written."""
    try:
        from cortex_tui.config import save_setting  # pydantic: not before the first frame

        save_setting(home, "tui.theme", name)
    except (ConfigError, OSError) as exc:
        return f"could not remember the theme: {exc}"
    return None
