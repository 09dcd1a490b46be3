"""`cortex-tui hook install`: write (or remove) our hooks in Claude Code's settings.

`cortex-tui hook pre|post` itself never reaches this module: `__main__` turns it into
`--hook pre|post` and runs the hook without loading the CLI.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents.claude_code import hook_settings as hooks_install
from cortex_tui.cli import install_args
from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import ConfigError, InvalidInputError

SCOPES = ["user", "project", "local"]


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = install_args.install_parser(
        sub,
        common,
        "hook",
        help="install the agent hooks (`hook pre|post` runs them, like `--hook`)",
        install_help="add the recall and capture hooks to Claude Code's settings",
        description="Add UserPromptSubmit, Stop and SessionStart hooks running "
        "`cortex-tui --hook pre|post`; everything else in the file is kept.",
    )
    p.add_argument(
        "--scope",
        choices=SCOPES,
        default="user",
        help="user: ~/.claude/settings.json (default); project: ./.claude/settings.json; "
        "local: ./.claude/settings.local.json",
    )
    p.add_argument("--settings", help="settings file to edit instead of the scope's")
    install_args.program_option(
        p,
        dest="hook_executable",
        metavar="CMD",
        help="how the hooks start cortex-tui (default: this installation's cortex-tui)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the result, write nothing")
    p.add_argument("--uninstall", action="store_true", help="remove our hooks instead")


def cmd_hook_install(ctx: CommandContext) -> int:
    a = ctx.args
    path = install_args.file_to_edit(
        a.settings, lambda: hooks_install.settings_path(a.scope, home=Path.home(), cwd=Path.cwd())
    )
    executable = a.hook_executable or _default_executable()
    if not hooks_install.is_recognised(executable):
        raise InvalidInputError(
            f"--command {executable!r} does not name cortex-tui, so a later install or "
            "--uninstall could not find the hooks; use e.g. /path/to/cortex-tui"
        )
    try:
        before = hooks_install.load_settings_file(path)
        if a.uninstall:
            after, changes = hooks_install.uninstall(before, path)
        else:
            after, changes = hooks_install.install(before, executable, path)
        write = bool(changes) and not a.dry_run
        if write:
            hooks_install.write_atomically(path, hooks_install.render(after))
    except hooks_install.SettingsFileError as exc:
        raise ConfigError(str(exc)) from None

    lines = [f"{path}{' (dry run: nothing written)' if a.dry_run else ''}"]
    lines += [change.describe() for change in changes]
    if not changes:
        lines.append("no cortex-tui hooks to remove" if a.uninstall else "already installed")
    data: dict[str, Any] = {
        "file": str(path),
        "action": "uninstall" if a.uninstall else "install",
        "changes": [change.as_dict() for change in changes],
        "written": write,
        "dry_run": a.dry_run,
    }
    if a.dry_run:
        data["settings"] = after
        if not ctx.json:
            # stdout carries exactly what would be written, so it can be piped or diffed.
            print("\n".join(lines), file=sys.stderr)
            print(hooks_install.render(after), end="")
            return 0
    ctx.emit(data, "\n".join(lines))
    return 0


def _default_executable() -> str:
    """The installed program, quoted: Claude Code runs a hook's command through a shell."""
    return shlex.quote(hooks_install.installed_program())


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"hook": cmd_hook_install}
