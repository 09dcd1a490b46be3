"""Add or remove cortex-tui's MCP server in an MCP client's configuration file.

Claude Code reads project servers from `.mcp.json` at the project root and the user's
from `~/.claude.json`, which also holds much else of Claude Code's own state; both keep
servers under `"mcpServers"`, the shape other clients (Claude Desktop, Cursor) share. So
the change is surgical, as for the hooks: only the entry named `cortex-tui` is added,
updated or removed, the file is replaced atomically, and the file as it was before a
change is kept beside it (`<file>.cortex-tui.bak`).

Standard library only: `cortex-tui mcp install` must work before any store exists.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

from cortex_tui.agent_turn.agents.claude_code.hook_settings import (
    JsonObject,
    SettingsFileError,
    load_settings_file,
    object_at,
    render,
    write_atomically,
)

McpScope = Literal["user", "project"]
Outcome = Literal["added", "updated", "removed", "unchanged"]

SERVERS = "mcpServers"
SERVER_NAME = "cortex-tui"
BACKUP_SUFFIX = ".cortex-tui.bak"


def config_path(scope: McpScope, *, home: Path, cwd: Path) -> Path:
    return home / ".claude.json" if scope == "user" else cwd / ".mcp.json"


def server_entry(program: str, data_home: Path | None) -> JsonObject:
    """How a client starts our server; `data_home` when it is not the default one."""
    entry: JsonObject = {"type": "stdio", "command": program, "args": ["mcp"]}
    if data_home is not None:
        entry["env"] = {"CORTEX_HOME": str(data_home)}
    return entry


def snippet(entry: JsonObject) -> JsonObject:
    """The JSON to paste into any client's configuration."""
    return {SERVERS: {SERVER_NAME: entry}}


def install(config: JsonObject, entry: JsonObject, path: Path) -> tuple[JsonObject, Outcome]:
    servers = object_at(config, SERVERS, path)
    current = servers.get(SERVER_NAME)
    if current == entry:
        return config, "unchanged"
    outcome: Outcome = "added" if current is None else "updated"
    return {**config, SERVERS: {**servers, SERVER_NAME: entry}}, outcome


def uninstall(config: JsonObject, path: Path) -> tuple[JsonObject, Outcome]:
    servers = object_at(config, SERVERS, path)
    if SERVER_NAME not in servers:
        return config, "unchanged"
    kept = {name: server for name, server in servers.items() if name != SERVER_NAME}
    return {**config, SERVERS: kept}, "removed"


def apply(path: Path, *, entry: JsonObject | None) -> tuple[Outcome, Path | None]:
    """Install `entry` (or uninstall, when None) in the file at `path`; the outcome and
    the backup written (None when the file did not exist or nothing changed)."""
    before = load_settings_file(path)
    after, outcome = install(before, entry, path) if entry else uninstall(before, path)
    if outcome == "unchanged":
        return outcome, None
    backup = back_up(path)
    write_atomically(path, render(after))
    return outcome, backup


def back_up(path: Path) -> Path | None:
    """A copy of the file as it was, beside it; None when there is no file."""
    if not path.exists():
        return None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    try:
        shutil.copy2(path, backup)
    except OSError as exc:
        raise SettingsFileError(
            f"cannot keep a backup of {path} at {backup}: {exc}; nothing was changed"
        ) from None
    return backup
