"""`cortex-tui openclaw install`: a real subprocess editing real OpenClaw config files (the
real OpenClaw reading them is in tests/agents/test_openclaw.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import json5

from cortex_tui.agent_turn.agents.claude_code.hook_settings import installed_program
from cortex_tui.agent_turn.agents.openclaw.install import PLUGIN_DIR

THEIRS = """// models and agents as the person set them up
{
  models: { providers: { local: { baseUrl: "http://127.0.0.1:11434", api: "ollama" } } },
  plugins: {
    allow: ["memory-core"],
    load: { paths: ["/opt/their-plugin"] },
    entries: {
      "memory-core": { enabled: true },
      "cortex-tui": { hooks: { timeoutMs: 20000 }, config: { captureTimeoutMs: 3000 } },
    },
  },
}
"""


def openclaw_install(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "OPENCLAW_"))}
    full_env |= {"HOME": str(home), "CORTEX_HOME": str(home / "cortex")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "openclaw", "install", *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def config_of(home: Path) -> dict[str, Any]:
    return dict(json.loads((home / ".openclaw" / "openclaw.json").read_text()))


def test_a_fresh_install_loads_the_shipped_plugin_with_its_settings(tmp_path: Path) -> None:
    done = openclaw_install(tmp_path)
    assert done.returncode == 0, done.stderr
    plugins = config_of(tmp_path)["plugins"]
    assert plugins["load"]["paths"] == [str(PLUGIN_DIR)]
    assert plugins["entries"]["cortex-tui"] == {
        "enabled": True,
        "hooks": {"allowConversationAccess": True},
        "config": {"command": [installed_program()], "home": str(tmp_path / "cortex")},
    }
    assert "allow" not in plugins  # an allowlist would switch off every other plugin
    assert (PLUGIN_DIR / "index.js").is_file()
    manifest = json.loads((PLUGIN_DIR / "openclaw.plugin.json").read_text())
    assert manifest["id"] == "cortex-tui"


def test_install_keeps_the_persons_config_and_says_what_it_changed(tmp_path: Path) -> None:
    config = tmp_path / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    config.write_text(THEIRS)
    done = openclaw_install(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"+ added load path {PLUGIN_DIR}" in done.stdout
    assert "~ updated plugins.entries.cortex-tui" in done.stdout
    assert "comments are not in the new file" in done.stdout
    after = config_of(tmp_path)
    before = json5.loads(THEIRS)
    assert after["models"] == before["models"]
    plugins = after["plugins"]
    assert plugins["allow"] == ["memory-core", "cortex-tui"]  # their allowlist, and us
    assert plugins["load"]["paths"] == ["/opt/their-plugin", str(PLUGIN_DIR)]
    assert plugins["entries"]["memory-core"] == {"enabled": True}
    ours = plugins["entries"]["cortex-tui"]
    assert ours["hooks"] == {"timeoutMs": 20000, "allowConversationAccess": True}
    assert ours["config"]["captureTimeoutMs"] == 3000  # their setting stays
    assert config.with_name("openclaw.json.cortex-tui.bak").read_text() == THEIRS


def test_install_twice_changes_nothing_and_a_moved_installation_replaces_its_path(
    tmp_path: Path,
) -> None:
    config = tmp_path / ".openclaw" / "openclaw.json"
    stale = "/old/venv/lib/python3.11/site-packages/cortex_tui/integrations/openclaw/plugin"
    config.parent.mkdir()
    config.write_text(json.dumps({"plugins": {"load": {"paths": [stale]}}}))
    first = openclaw_install(tmp_path)
    assert f"- removed load path {stale}" in first.stdout
    assert config_of(tmp_path)["plugins"]["load"]["paths"] == [str(PLUGIN_DIR)]
    written = config.read_text()
    again = openclaw_install(tmp_path)
    assert again.returncode == 0 and again.stdout.strip().endswith("already installed")
    assert config.read_text() == written


def test_uninstall_takes_out_only_what_install_put_in(tmp_path: Path) -> None:
    config = tmp_path / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    theirs = {"plugins": {"allow": ["memory-core"], "load": {"paths": ["/opt/their-plugin"]}}}
    config.write_text(json.dumps(theirs))
    openclaw_install(tmp_path)
    done = openclaw_install(tmp_path, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert config_of(tmp_path) == theirs
    assert (
        openclaw_install(tmp_path, "--uninstall")
        .stdout.strip()
        .endswith("no cortex-tui plugin to remove")
    )


def test_openclaws_own_variables_choose_the_file(tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere" / "oc.json"
    done = openclaw_install(tmp_path, env={"OPENCLAW_CONFIG_PATH": str(chosen)})
    assert done.returncode == 0 and done.stdout.startswith(str(chosen))
    state = tmp_path / "state"
    openclaw_install(tmp_path, env={"OPENCLAW_STATE_DIR": str(state)})
    assert (state / "openclaw.json").is_file()
    assert not (tmp_path / ".openclaw").exists()


def test_print_shows_the_config_to_add_and_writes_nothing(tmp_path: Path) -> None:
    done = openclaw_install(tmp_path, "--print", "--recall-timeout-ms", "3000")
    assert done.returncode == 0
    entry = json.loads(done.stdout)["plugins"]["entries"]["cortex-tui"]
    assert entry["config"]["recallTimeoutMs"] == 3000
    assert not (tmp_path / ".openclaw").exists()


def test_a_config_that_is_not_json5_is_named_and_left_as_it_was(tmp_path: Path) -> None:
    config = tmp_path / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    config.write_text("{ plugins: { load: [ }")
    done = openclaw_install(tmp_path)
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert str(config) in line and "not valid JSON5" in line and "retry" in line
    assert config.read_text() == "{ plugins: { load: [ }"
    assert not config.with_name("openclaw.json.cortex-tui.bak").exists()


def test_a_config_of_the_wrong_shape_is_named(tmp_path: Path) -> None:
    config = tmp_path / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"plugins": {"load": {"paths": "/opt/x"}}}))
    done = openclaw_install(tmp_path)
    assert done.returncode != 0
    assert '"plugins.load.paths" is a str, not a list' in done.stderr


def test_a_timeout_out_of_range_is_refused_in_one_line(tmp_path: Path) -> None:
    done = openclaw_install(tmp_path, "--recall-timeout-ms", "5")
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert "--recall-timeout-ms must be between 100 and 60000" in line
    assert not (tmp_path / ".openclaw").exists()
