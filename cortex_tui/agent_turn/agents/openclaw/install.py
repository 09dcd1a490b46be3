"""Add or remove the cortex-tui plugin in OpenClaw's configuration.

OpenClaw reads one JSON5 file (`~/.openclaw/openclaw.json`, or where
`OPENCLAW_CONFIG_PATH`, `OPENCLAW_STATE_DIR` or `OPENCLAW_HOME` put it) and validates it
strictly, so only what the plugin needs is touched: the plugin's folder in
`plugins.load.paths`, its entry in `plugins.entries` (enabled, allowed to read the
conversation, told how to reach cortex-tui), and its id in `plugins.allow` when the
person keeps such a list (OpenClaw then loads nothing else). Keys the person added to
our entry (a hook timeout, say) are kept; a load path left by an earlier installation
(a venv since moved) is replaced. The file as it was is kept beside it
(`openclaw.json.cortex-tui.bak`) and the new one replaces it atomically. Like OpenClaw's
own writes, the result is standard JSON: comments do not survive, and the caller says so.

The plugin is loaded from where this installation ships it, so upgrading cortex-tui
upgrades the plugin with it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import json5

from cortex_tui.agent_turn.agents.claude_code.hook_settings import (
    SETTINGS_LIMIT,
    JsonObject,
    SettingsFileError,
    write_atomically,
)
from cortex_tui.agent_turn.agents.mcp_clients import back_up
from cortex_tui.errors import InvalidInputError
from cortex_tui.untrusted.files import read_whole

PLUGIN_ID = "cortex-tui"
PLUGIN_DIR = Path(__file__).resolve().with_name("plugin")
SHIPPED_AT = (
    ("cortex_tui", "agent_turn", "agents", "openclaw", "plugin"),
    ("cortex_tui", "integrations", "openclaw", "plugin"),
)
"""The tails of the plugin's folder in any installation, this version's and earlier
ones': how a stale load path is known (an upgrade replaces it)."""


def state_dir(env: Mapping[str, str], home: Path) -> Path:
    """OpenClaw's state folder (its config, skills, agents), as OpenClaw finds it."""
    if env.get("OPENCLAW_STATE_DIR"):
        return Path(env["OPENCLAW_STATE_DIR"]).expanduser()
    if env.get("OPENCLAW_HOME"):
        return Path(env["OPENCLAW_HOME"]).expanduser() / ".openclaw"
    return home / ".openclaw"


def config_path(env: Mapping[str, str], home: Path) -> Path:
    if env.get("OPENCLAW_CONFIG_PATH"):
        return Path(env["OPENCLAW_CONFIG_PATH"]).expanduser()
    return state_dir(env, home) / "openclaw.json"


def plugin_config(command: list[str], data_home: Path) -> JsonObject:
    """What the plugin is told: how to start cortex-tui, and the data home whose
    service it asks (it cannot work out the platform's default home itself)."""
    return {"command": command, "home": str(data_home)}


@dataclass
class Loaded:
    config: JsonObject
    existed: bool
    plain_json: bool
    """False when the file used JSON5's own syntax (comments, trailing commas), which a
    rewrite as JSON loses."""


def load(path: Path) -> Loaded:
    if not path.exists():
        return Loaded({}, existed=False, plain_json=True)
    try:
        data = read_whole(path, limit=SETTINGS_LIMIT, what="OpenClaw config", fix="check the path")
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsFileError(f"cannot read {path}: {exc}; save it as UTF-8 and retry") from None
    except InvalidInputError as exc:  # too large, a folder, unreadable
        raise SettingsFileError(str(exc)) from None
    if not text.strip():
        return Loaded({}, existed=True, plain_json=True)
    try:
        config = json5.loads(text)
    except ValueError as exc:
        raise SettingsFileError(
            f"{path} is not valid JSON5 ({exc}); fix it (`openclaw config validate` "
            "shows where), then retry"
        ) from None
    if not isinstance(config, dict):
        raise SettingsFileError(
            f"{path} holds a {type(config).__name__}, not an object; fix or remove it, then retry"
        )
    return Loaded(config, existed=True, plain_json=_is_json(text))


@dataclass
class Outcome:
    changes: list[str] = field(default_factory=list)
    backup: Path | None = None
    comments_dropped: bool = False
    config: JsonObject = field(default_factory=dict)


def install(
    config: JsonObject, entry_config: JsonObject, path: Path
) -> tuple[JsonObject, list[str]]:
    """`config` with the plugin loaded, enabled and configured; what changed. The input
    is not modified."""
    plugins = dict(_object(config, "plugins", path))
    changes: list[str] = []
    load_section = dict(_object(plugins, "load", path, "plugins.load"))
    paths = _list(load_section, "paths", path, "plugins.load.paths")
    ours = str(PLUGIN_DIR)
    ours_like = [p for p in paths if isinstance(p, str) and _is_ours(p)]
    if ours_like != [ours]:
        changes += [f"- removed load path {p}" for p in ours_like if p != ours]
        if ours not in ours_like:
            changes.append(f"+ added load path {ours}")
        load_section["paths"] = [p for p in paths if p not in ours_like] + [ours]
    plugins["load"] = load_section

    entries = dict(_object(plugins, "entries", path, "plugins.entries"))
    current = entries.get(PLUGIN_ID, {})
    if not isinstance(current, dict):
        current = {}
    hooks = _object_or_empty(current.get("hooks"))
    settings = _object_or_empty(current.get("config"))
    wanted = {
        **current,
        "enabled": True,
        "hooks": {**hooks, "allowConversationAccess": True},
        "config": {**settings, **entry_config},
    }
    if wanted != current:
        changes.append(f"{'~ updated' if current else '+ added'} plugins.entries.{PLUGIN_ID}")
    entries[PLUGIN_ID] = wanted
    plugins["entries"] = entries

    allow = plugins.get("allow")
    if isinstance(allow, list) and PLUGIN_ID not in allow:
        plugins["allow"] = [*allow, PLUGIN_ID]
        changes.append(f"+ added {PLUGIN_ID} to plugins.allow")
    if not changes:
        return config, []
    return {**config, "plugins": plugins}, changes


def uninstall(config: JsonObject, path: Path) -> tuple[JsonObject, list[str]]:
    """`config` without the plugin's load path, entry and place in `plugins.allow`."""
    if "plugins" not in config:
        return config, []
    plugins = dict(_object(config, "plugins", path))
    changes: list[str] = []
    load_section = plugins.get("load")
    if isinstance(load_section, dict) and isinstance(load_section.get("paths"), list):
        paths = load_section["paths"]
        kept = [p for p in paths if not (isinstance(p, str) and _is_ours(p))]
        if kept != paths:
            changes += [f"- removed load path {p}" for p in paths if p not in kept]
            plugins["load"] = {**load_section, "paths": kept}
    entries = plugins.get("entries")
    if isinstance(entries, dict) and PLUGIN_ID in entries:
        plugins["entries"] = {k: v for k, v in entries.items() if k != PLUGIN_ID}
        changes.append(f"- removed plugins.entries.{PLUGIN_ID}")
    allow = plugins.get("allow")
    if isinstance(allow, list) and PLUGIN_ID in allow:
        plugins["allow"] = [name for name in allow if name != PLUGIN_ID]
        changes.append(f"- removed {PLUGIN_ID} from plugins.allow")
    if not changes:
        return config, []
    return _without_emptied(config, plugins), changes


def _without_emptied(config: JsonObject, plugins: JsonObject) -> JsonObject:
    """`config` with `plugins`, less the containers our removal left empty (OpenClaw
    reads an absent one as an empty one). An emptied `plugins.allow` stays: whether
    OpenClaw reads an empty allowlist as "none" is not ours to change."""
    load_section = plugins.get("load")
    if isinstance(load_section, dict):
        if load_section.get("paths") == []:
            load_section = {k: v for k, v in load_section.items() if k != "paths"}
            plugins["load"] = load_section
        if not load_section:
            del plugins["load"]
    if plugins.get("entries") == {}:
        del plugins["entries"]
    if plugins:
        return {**config, "plugins": plugins}
    return {k: v for k, v in config.items() if k != "plugins"}


def apply(path: Path, entry_config: JsonObject | None, *, write: bool = True) -> Outcome:
    """Install (or uninstall, when `entry_config` is None) in the file at `path`."""
    loaded = load(path)
    if entry_config is None:
        after, changes = uninstall(loaded.config, path)
    else:
        after, changes = install(loaded.config, entry_config, path)
    outcome = Outcome(changes, config=after)
    if not changes or not write:
        return outcome
    outcome.backup = back_up(path)
    outcome.comments_dropped = loaded.existed and not loaded.plain_json
    write_atomically(path, render(after))
    return outcome


def render(config: JsonObject) -> str:
    """Standard JSON, as OpenClaw's own writes leave the file."""
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"


def snippet(entry_config: JsonObject) -> JsonObject:
    """The part of OpenClaw's config to add by hand."""
    config, _ = install({}, entry_config, Path("openclaw.json"))
    return config


def _is_ours(load_path: str) -> bool:
    parts = Path(os.path.normpath(load_path)).parts
    return any(tuple(parts[-len(tail) :]) == tail for tail in SHIPPED_AT)


def _object_or_empty(value: Any) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _object(holder: JsonObject, key: str, path: Path, name: str | None = None) -> JsonObject:
    value = holder.get(key, {})
    if not isinstance(value, dict):
        raise SettingsFileError(
            f'{path}: "{name or key}" is a {type(value).__name__}, not an object; fix it '
            "or remove the key, then retry"
        )
    return value


def _list(holder: JsonObject, key: str, path: Path, name: str) -> list[Any]:
    value = holder.get(key, [])
    if not isinstance(value, list):
        raise SettingsFileError(
            f'{path}: "{name}" is a {type(value).__name__}, not a list; fix it or remove '
            "the key, then retry"
        )
    return list(value)
