"""`cortex-tui skill install`: the skill written where each agent reads skills, naming
commands that this very CLI accepts (OpenClaw listing it is in tests/agents/)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cortex_tui.agent_turn.agents.claude_code.hook_settings import installed_program
from cortex_tui.agent_turn.agents.skill.install import TEMPLATE
from cortex_tui.cli.parser import build_parser

CLAUDE = Path(".claude/skills/cortex-tui-memory/SKILL.md")
OPENCLAW = Path(".openclaw/skills/cortex-tui-memory/SKILL.md")


def skill(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "OPENCLAW_"))}
    env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "skill", "install", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_install_writes_the_skill_for_both_agents_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    done = skill(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"claude: added {tmp_path / CLAUDE}",
        f"openclaw: added {tmp_path / OPENCLAW}",
    ]
    text = (tmp_path / CLAUDE).read_text()
    assert text == (tmp_path / OPENCLAW).read_text()
    assert text.startswith("---\nname: cortex-tui-memory\ndescription: ")
    assert f"{shlex.quote(installed_program())} recall" in text  # found without PATH
    assert "{program}" not in text
    again = skill(tmp_path)
    assert "added" not in again.stdout and again.stdout.count("unchanged") == 2


def test_one_agent_and_uninstall(tmp_path: Path) -> None:
    skill(tmp_path, "--agent", "openclaw")
    assert (tmp_path / OPENCLAW).is_file() and not (tmp_path / CLAUDE).exists()
    done = skill(tmp_path, "--uninstall")
    assert done.stdout.splitlines() == [
        f"claude: unchanged {tmp_path / CLAUDE}",
        f"openclaw: removed {tmp_path / OPENCLAW}",
    ]
    assert not (tmp_path / OPENCLAW).parent.exists()


def test_print_writes_nothing(tmp_path: Path) -> None:
    done = skill(tmp_path, "--print")
    assert done.stdout.startswith("---\nname: cortex-tui-memory")
    assert not (tmp_path / ".claude").exists()


def commands_taught() -> list[list[str]]:
    """Every command line the skill shows, as its words after the program."""
    lines = re.findall(r"^\s+\{program\} (.+?)(?:\s+#.*)?$", TEMPLATE.read_text(), re.M)
    return [shlex.split(line) for line in lines]


@pytest.mark.parametrize("words", commands_taught(), ids=lambda words: words[0])
def test_every_command_the_skill_teaches_is_one_this_cli_accepts(words: list[str]) -> None:
    build_parser().parse_args(words)


def test_the_skill_teaches_the_commands_it_says_it_does() -> None:
    assert {words[0] for words in commands_taught()} == {
        "recall",
        "search",
        "remember",
        "conflicts",
        "resolve",
        "forget",
    }
