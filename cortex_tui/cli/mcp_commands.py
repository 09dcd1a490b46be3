"""`cortex-tui mcp install`: register the MCP server with Claude Code, or print the JSON
for any other client.

`cortex-tui mcp` itself (the server) never reaches this module: `__main__` hands it to
the MCP surface, which parses its own options.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents import mcp_clients
from cortex_tui.agent_turn.agents.claude_code import hook_settings as claude_code
from cortex_tui.cli import install_args
from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import ConfigError
from cortex_tui.paths import platform_home


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = install_args.install_parser(
        sub,
        common,
        "mcp",
        help="serve memory to MCP clients (`mcp` runs the server; `mcp install` registers it)",
        install_help="register the MCP server with Claude Code",
        description="Add a `cortex-tui` entry to Claude Code's MCP servers; every other "
        "entry is kept, and the file as it was is kept beside it (.cortex-tui.bak).",
    )
    p.add_argument(
        "--scope",
        choices=["user", "project"],
        default="user",
        help="user: ~/.claude.json (default); project: ./.mcp.json",
    )
    p.add_argument("--config", help="configuration file to edit instead of the scope's")
    install_args.program_option(
        p,
        dest="mcp_program",
        metavar="PROGRAM",
        help="the program a client starts (default: this installation's cortex-tui)",
    )
    install_args.print_or_uninstall(
        p,
        prints="print the JSON for any MCP client, write nothing",
        removes="remove our entry instead",
    )


def cmd_mcp_install(ctx: CommandContext) -> int:
    a = ctx.args
    entry = mcp_clients.server_entry(
        a.mcp_program or claude_code.installed_program(), _data_home(ctx)
    )
    if a.print:
        print(json.dumps(mcp_clients.snippet(entry), indent=2))
        return 0
    path = install_args.file_to_edit(
        a.config, lambda: mcp_clients.config_path(a.scope, home=Path.home(), cwd=Path.cwd())
    )
    try:
        outcome, backup = mcp_clients.apply(path, entry=None if a.uninstall else entry)
    except claude_code.SettingsFileError as exc:
        raise ConfigError(str(exc)) from None
    lines = [f"{path}: {_describe(outcome, uninstall=a.uninstall)}"]
    if backup is not None:
        lines.append(f"the file as it was: {backup}")
    data: dict[str, Any] = {
        "file": str(path),
        "action": "uninstall" if a.uninstall else "install",
        "outcome": outcome,
        "backup": str(backup) if backup else None,
        "entry": None if a.uninstall else entry,
    }
    ctx.emit(data, "\n".join(lines))
    return 0


def _data_home(ctx: CommandContext) -> Path | None:
    """The data home to pin in the entry (`--home` or `CORTEX_HOME`), unless it is the
    one a client started without `CORTEX_HOME` finds anyway."""
    home = ctx.settings.home.expanduser().absolute()
    return None if home == platform_home().absolute() else home


def _describe(outcome: str, *, uninstall: bool) -> str:
    if outcome == "unchanged":
        return "no cortex-tui server to remove" if uninstall else "already installed"
    return f"{outcome} the cortex-tui MCP server"


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"mcp": cmd_mcp_install}
