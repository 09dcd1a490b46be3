"""`cortex-tui mcp install`: a real subprocess editing real client configuration files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.agents.claude_code.hook_settings import installed_program

# ~/.claude.json as Claude Code keeps it: much state of its own, and another server.
USER_CONFIG: dict[str, Any] = {
    "numStartups": 12,
    "projects": {"/src/app": {"allowedTools": []}},
    "mcpServers": {"github": {"type": "stdio", "command": "npx", "args": ["gh-mcp"]}},
    "theme": "dark",
}


def install(home: Path, cwd: Path, *args: str, cortex_home: Path | None = None) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env["HOME"] = str(home)
    if cortex_home is not None:
        env["CORTEX_HOME"] = str(cortex_home)
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "mcp", "install", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def ours(program: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio", "command": program, "args": ["mcp"]}
    if env:
        entry["env"] = env
    return entry


def test_user_install_adds_ours_keeps_the_rest_and_a_backup(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    original = json.dumps(USER_CONFIG, indent=2)
    config.write_text(original)
    config.chmod(0o600)
    done = install(tmp_path, tmp_path, "--command", "/opt/cortex/bin/cortex-tui")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"{config}: added the cortex-tui MCP server"
    written = json.loads(config.read_text())
    assert list(written) == list(USER_CONFIG)
    assert written["mcpServers"] == {
        "github": USER_CONFIG["mcpServers"]["github"],
        "cortex-tui": ours("/opt/cortex/bin/cortex-tui"),
    }
    assert {k: v for k, v in written.items() if k != "mcpServers"} == {
        k: v for k, v in USER_CONFIG.items() if k != "mcpServers"
    }
    backup = tmp_path / ".claude.json.cortex-tui.bak"
    assert backup.read_text() == original
    assert config.stat().st_mode & 0o777 == 0o600

    backup.unlink()
    again = install(tmp_path, tmp_path, "--command", "/opt/cortex/bin/cortex-tui")
    assert again.stdout.strip() == f"{config}: already installed"
    assert not backup.exists()

    removed = install(tmp_path, tmp_path, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert json.loads(config.read_text()) == USER_CONFIG
    assert (
        install(tmp_path, tmp_path, "--uninstall")
        .stdout.strip()
        .endswith("no cortex-tui server to remove")
    )


def test_project_scope_writes_mcp_json_and_pins_a_custom_home(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    store = tmp_path / "memory-home"
    done = install(tmp_path, project, "--scope", "project", "--json", cortex_home=store)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "added" and report["backup"] is None
    written = json.loads((project / ".mcp.json").read_text())
    assert written == {
        "mcpServers": {"cortex-tui": ours(installed_program(), {"CORTEX_HOME": str(store)})}
    }
    assert not (tmp_path / ".claude.json").exists()


def test_print_shows_the_json_for_any_client_and_writes_nothing(tmp_path: Path) -> None:
    shown = install(tmp_path, tmp_path, "--print", "--command", "cortex-tui")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {"mcpServers": {"cortex-tui": ours("cortex-tui")}}
    assert list(tmp_path.iterdir()) == []


def test_an_unusable_file_is_one_line_error_and_stays_unchanged(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    for text in ('{"mcpServers": [1, 2]}', "{not json"):
        config.write_text(text)
        refused = install(tmp_path, tmp_path)
        assert refused.returncode != 0
        assert len(refused.stderr.strip().splitlines()) == 1
        assert str(config) in refused.stderr
        assert config.read_text() == text
        assert not (tmp_path / ".claude.json.cortex-tui.bak").exists()
