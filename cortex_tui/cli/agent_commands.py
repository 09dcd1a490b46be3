"""`cortex-tui openclaw install` (the OpenClaw plugin) and `cortex-tui skill install` (the
skill for agent-initiated memory, for Claude Code and OpenClaw)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents.claude_code import hook_settings as claude_code
from cortex_tui.agent_turn.agents.openclaw import install as openclaw_install
from cortex_tui.agent_turn.agents.skill import install as skill_install
from cortex_tui.cli import install_args
from cortex_tui.cli.args import OneLineParser, Subparsers
from cortex_tui.cli.context import CommandContext
from cortex_tui.errors import ConfigError


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = install_args.install_parser(
        sub,
        common,
        "openclaw",
        help="give OpenClaw memory: install the cortex-tui plugin",
        install_help="load the cortex-tui plugin in OpenClaw (recall before each prompt, "
        "capture after each turn)",
        description="Add the plugin shipped with cortex-tui to OpenClaw's config "
        "(~/.openclaw/openclaw.json, or OPENCLAW_CONFIG_PATH): its folder in "
        "plugins.load.paths and its entry in plugins.entries; everything else is kept, and "
        "the file as it was is kept beside it (.cortex-tui.bak).",
    )
    p.add_argument("--config", help="OpenClaw config file to edit instead of the default")
    install_args.program_option(
        p,
        dest="openclaw_program",
        metavar="PROGRAM",
        help="how the plugin starts cortex-tui (default: this installation's cortex-tui)",
    )
    p.add_argument(
        "--recall-timeout-ms",
        type=int,
        metavar="MS",
        help="longest a prompt waits for its memories (default 10000)",
    )
    install_args.print_or_uninstall(
        p,
        prints="print the config to add by hand, write nothing",
        removes="remove the plugin instead",
    )

    p = install_args.install_parser(
        sub,
        common,
        "skill",
        help="teach agents to use memory themselves: install the skill",
        install_help="write the cortex-tui skill where Claude Code and OpenClaw read skills",
        description="Write SKILL.md (when to recall, remember and settle conflicts) to "
        f"~/.claude/skills/{skill_install.SKILL_NAME}/ and ~/.openclaw/skills/"
        f"{skill_install.SKILL_NAME}/.",
    )
    p.add_argument(
        "--agent",
        choices=skill_install.AGENTS,
        action="append",
        help="only this agent (repeatable; default: both)",
    )
    install_args.print_or_uninstall(
        p, prints="print the skill, write nothing", removes="remove the skill instead"
    )


def cmd_openclaw(ctx: CommandContext) -> int:
    a = ctx.args
    program = a.openclaw_program or claude_code.installed_program()
    entry = openclaw_install.plugin_config([program], ctx.settings.home.expanduser().absolute())
    if a.recall_timeout_ms is not None:
        if not 100 <= a.recall_timeout_ms <= 60000:
            raise ConfigError("--recall-timeout-ms must be between 100 and 60000; pick one")
        entry["recallTimeoutMs"] = a.recall_timeout_ms
    if a.print:
        print(json.dumps(openclaw_install.snippet(entry), indent=2))
        return 0
    path = install_args.file_to_edit(
        a.config, lambda: openclaw_install.config_path(os.environ, Path.home())
    )
    try:
        outcome = openclaw_install.apply(path, None if a.uninstall else entry)
    except claude_code.SettingsFileError as exc:
        raise ConfigError(str(exc)) from None
    lines = [str(path), *outcome.changes]
    if not outcome.changes:
        lines.append("no cortex-tui plugin to remove" if a.uninstall else "already installed")
    if outcome.backup is not None:
        lines.append(f"the file as it was: {outcome.backup}")
    if outcome.comments_dropped:
        lines.append("its comments are not in the new file (OpenClaw's own writes drop them too)")
    if outcome.changes and not a.uninstall:
        lines.append("OpenClaw loads the plugin at its next start (restart a running gateway)")
    data: dict[str, Any] = {
        "file": str(path),
        "action": "uninstall" if a.uninstall else "install",
        "changes": outcome.changes,
        "backup": str(outcome.backup) if outcome.backup else None,
        "comments_dropped": outcome.comments_dropped,
        "plugin": str(openclaw_install.PLUGIN_DIR),
    }
    ctx.emit(data, "\n".join(lines))
    return 0


def cmd_skill(ctx: CommandContext) -> int:
    a = ctx.args
    text = skill_install.skill_text(claude_code.installed_program())
    if a.print:
        sys.stdout.write(text)
        return 0
    agents = a.agent or list(skill_install.AGENTS)
    done: list[dict[str, str]] = []
    try:
        for agent in dict.fromkeys(agents):
            path = skill_install.skill_file(agent, os.environ, Path.home())
            outcome = (
                skill_install.uninstall(path) if a.uninstall else skill_install.install(path, text)
            )
            done.append({"agent": agent, "file": str(path), "outcome": outcome})
    except claude_code.SettingsFileError as exc:
        raise ConfigError(str(exc)) from None
    lines = [f"{item['agent']}: {item['outcome']} {item['file']}" for item in done]
    ctx.emit(
        {"action": "uninstall" if a.uninstall else "install", "skills": done}, "\n".join(lines)
    )
    return 0


HANDLERS: dict[str, Callable[[CommandContext], int]] = {
    "openclaw": cmd_openclaw,
    "skill": cmd_skill,
}
