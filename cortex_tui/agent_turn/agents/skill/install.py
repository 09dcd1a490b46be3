"""Write (or remove) the cortex-tui skill where Claude Code and OpenClaw read skills.

Claude Code reads a person's skills from `~/.claude/skills/<name>/SKILL.md`; OpenClaw
from `skills/` in its state folder (`~/.openclaw/skills`, or under `OPENCLAW_STATE_DIR`
/ `OPENCLAW_HOME`) — it does not read Claude Code's. The skill names this installation's
`cortex-tui` by absolute path, since an agent's shell may not have it on PATH. The folder
is the skill's own: installing again rewrites it, uninstalling removes it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from cortex_tui.agent_turn.agents.claude_code.hook_settings import (
    SettingsFileError,
    write_atomically,
)
from cortex_tui.agent_turn.agents.openclaw.install import state_dir

SKILL_NAME = "cortex-tui-memory"
TEMPLATE = Path(__file__).with_name("SKILL.md")
PROGRAM_MARK = "{program}"

Agent = Literal["claude", "openclaw"]
AGENTS: tuple[Agent, ...] = ("claude", "openclaw")
Outcome = Literal["added", "updated", "removed", "unchanged"]


def skill_text(program: str) -> str:
    return TEMPLATE.read_text(encoding="utf-8").replace(PROGRAM_MARK, shlex.quote(program))


def skill_file(agent: Agent, env: Mapping[str, str], home: Path) -> Path:
    skills = home / ".claude" / "skills" if agent == "claude" else state_dir(env, home) / "skills"
    return skills / SKILL_NAME / "SKILL.md"


def install(path: Path, text: str) -> Outcome:
    try:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        current = None  # unreadable: written afresh below, or the write says why
    if current == text:
        return "unchanged"
    write_atomically(path, text)
    return "added" if current is None else "updated"


def uninstall(path: Path) -> Outcome:
    if not path.exists():
        return "unchanged"
    try:
        path.unlink()
        if not any(path.parent.iterdir()):
            path.parent.rmdir()
    except OSError as exc:
        raise SettingsFileError(f"cannot remove {path}: {exc}; remove it by hand") from None
    return "removed"
