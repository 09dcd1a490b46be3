"""`cortex-tui hook install`: a real subprocess editing real settings files, plus the pure
functions for the cases a command line cannot set up (stale and duplicate entries)."""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.agent_turn.agents.claude_code import hook_settings as hi
from tests.conftest import Cli

OUR_PRE = {"type": "command", "command": "cortex-tui --hook pre", "timeout": 10}
OUR_POST = {"type": "command", "command": "cortex-tui --hook post", "timeout": 30}

# A settings file as a person has it: other keys, other tools' hooks, other matchers,
# another command in an event we also use.
ORIGINAL: dict[str, Any] = {
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
        ],
    },
    "env": {"FOO": "1"},
    "model": "opus",
}

# What install must make of it: the originals untouched and first, ours appended.
INSTALLED: dict[str, Any] = {
    "permissions": ORIGINAL["permissions"],
    "hooks": {
        "PreToolUse": ORIGINAL["hooks"]["PreToolUse"],
        "Stop": [*ORIGINAL["hooks"]["Stop"], {"hooks": [OUR_POST]}],
        "SessionStart": [
            *ORIGINAL["hooks"]["SessionStart"],
            {"hooks": [OUR_PRE]},
        ],
        "UserPromptSubmit": [{"hooks": [OUR_PRE]}],
    },
    "env": ORIGINAL["env"],
    "model": "opus",
}


def key_orders(value: Any) -> Any:
    """Every object's key order, so a test can see that nothing was reordered."""
    if isinstance(value, dict):
        return [(key, key_orders(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_orders(item) for item in value]
    return None


def write_json(path: Path, data: Any, indent: int = 4) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent) + "\n")


def hook_install(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as an agent's user runs it: in a project folder, with their HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env.update({"HOME": str(home), "CORTEX_HOME": str(home / "cortex")})
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "hook", "install", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def settings(tmp_path: Path) -> Path:
    path = tmp_path / "project" / ".claude" / "settings.json"
    write_json(path, ORIGINAL)
    return path


def test_install_adds_ours_and_keeps_everything_else(cli: Cli, settings: Path) -> None:
    result = cli("hook", "install", "--settings", str(settings), "--command", "cortex-tui")

    assert result.code == 0, result.err
    written = json.loads(settings.read_text())
    assert written == INSTALLED
    assert key_orders(written) == key_orders(INSTALLED)
    assert str(settings) in result.out
    assert result.out.count("+ added") == 3


def test_install_writes_two_space_indentation_and_a_final_newline(cli: Cli, settings: Path) -> None:
    cli("hook", "install", "--settings", str(settings), "--command", "cortex-tui")

    assert settings.read_text() == json.dumps(INSTALLED, indent=2) + "\n"


def test_installing_twice_changes_nothing(cli: Cli, settings: Path) -> None:
    cli("hook", "install", "--settings", str(settings), "--command", "cortex-tui")
    first = settings.read_text()
    first_inode = settings.stat().st_ino

    again = cli("hook", "install", "--settings", str(settings), "--command", "cortex-tui")
    as_json = cli(
        "hook", "install", "--settings", str(settings), "--command", "cortex-tui", "--json"
    )

    assert again.code == 0, again.err
    assert "already installed" in again.out
    assert json.loads(as_json.out)["changes"] == []
    assert json.loads(as_json.out)["written"] is False
    assert settings.read_text() == first
    assert settings.stat().st_ino == first_inode  # not even rewritten


def test_uninstall_restores_the_original(cli: Cli, settings: Path) -> None:
    cli("hook", "install", "--settings", str(settings), "--command", "cortex-tui")

    result = cli("hook", "install", "--settings", str(settings), "--uninstall", "--json")

    assert result.code == 0, result.err
    restored = json.loads(settings.read_text())
    assert restored == ORIGINAL
    assert key_orders(restored) == key_orders(ORIGINAL)
    removed = json.loads(result.out)["changes"]
    assert [(c["action"], c["event"]) for c in removed] == [
        ("removed", "Stop"),
        ("removed", "SessionStart"),
        ("removed", "UserPromptSubmit"),
    ]


def test_uninstall_without_our_hooks_leaves_the_file_alone(cli: Cli, settings: Path) -> None:
    before = settings.read_text()

    result = cli("hook", "install", "--settings", str(settings), "--uninstall")

    assert result.code == 0, result.err
    assert "no cortex-tui hooks to remove" in result.out
    assert settings.read_text() == before  # still the 4-space original


UNUSABLE = [
    ('{"hooks": {"Stop": [}}\n', "not valid JSON"),
    ('["not", "an", "object"]\n', "not an object"),
    ('{"hooks": ["Stop"]}\n', '"hooks" is a JSON list, not an object'),
]


@pytest.mark.parametrize(
    ("content", "problem", "extra"),
    [
        *[(content, problem, []) for content, problem in UNUSABLE],
        *[(content, problem, ["--uninstall"]) for content, problem in UNUSABLE],
        # Only install must write into the event; uninstall has nothing to remove there.
        ('{"hooks": {"Stop": {"command": "x"}}}\n', '"hooks.Stop" is a JSON dict', []),
    ],
)
def test_an_unusable_file_is_one_line_error_and_stays_unchanged(
    cli: Cli, tmp_path: Path, content: str, problem: str, extra: list[str]
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)

    result = cli("hook", "install", "--settings", str(path), *extra)

    assert result.code == 1
    assert result.out == ""
    assert len(result.err.strip().splitlines()) == 1
    assert str(path) in result.err
    assert problem in result.err
    assert "fix" in result.err
    assert path.read_text() == content
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["settings.json"]


def test_dry_run_prints_the_result_and_writes_nothing(cli: Cli, settings: Path) -> None:
    before = settings.read_text()
    missing = settings.parent / "absent" / "settings.json"

    existing = cli(
        "hook", "install", "--settings", str(settings), "--command", "cortex-tui", "--dry-run"
    )
    new = cli("hook", "install", "--settings", str(missing), "--dry-run", "--json")

    assert existing.code == 0, existing.err
    assert json.loads(existing.out) == INSTALLED  # stdout is exactly the would-be file
    assert existing.out == json.dumps(INSTALLED, indent=2) + "\n"
    assert "nothing written" in existing.err
    assert settings.read_text() == before
    report = json.loads(new.out)
    assert report["written"] is False
    assert len(report["changes"]) == 3
    assert set(report["settings"]["hooks"]) == {"UserPromptSubmit", "Stop", "SessionStart"}
    assert not missing.parent.exists()


@pytest.mark.parametrize(
    ("scope", "name"), [("project", "settings.json"), ("local", "settings.local.json")]
)
def test_project_and_local_scopes_write_into_the_working_folder(
    tmp_path: Path, scope: str, name: str
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()

    result = hook_install(project, home, "--scope", scope, "--command", "cortex-tui")

    assert result.returncode == 0, result.stderr
    path = project / ".claude" / name
    assert json.loads(path.read_text()) == {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [OUR_PRE]}],
            "Stop": [{"hooks": [OUR_POST]}],
            "SessionStart": [{"hooks": [OUR_PRE]}],
        }
    }
    assert sorted(p.name for p in (project / ".claude").iterdir()) == [name]
    assert not (home / ".claude").exists()


def test_user_scope_is_the_default_and_writes_under_home(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    write_json(home / ".claude" / "settings.json", {"model": "sonnet"}, indent=2)

    result = hook_install(project, home, "--command", "cortex-tui")

    assert result.returncode == 0, result.stderr
    written = json.loads((home / ".claude" / "settings.json").read_text())
    assert list(written) == ["model", "hooks"]
    assert written["hooks"]["Stop"] == [{"hooks": [OUR_POST]}]
    assert not (project / ".claude").exists()


def test_the_default_command_is_this_installations_script(tmp_path: Path) -> None:
    script = Path(sysconfig.get_path("scripts")) / "cortex-tui"
    if not script.is_file():
        pytest.skip("cortex-tui is not installed as a script in this environment")
    home = tmp_path / "home"
    home.mkdir()

    result = hook_install(tmp_path, home)

    assert result.returncode == 0, result.stderr
    written = json.loads((home / ".claude" / "settings.json").read_text())
    command = written["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command == f"{shlex.quote(str(script))} --hook pre"


def test_a_command_that_does_not_name_cortex_tui_is_refused(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"

    result = cli("hook", "install", "--settings", str(path), "--command", "/usr/bin/memhook")

    assert result.code == 2
    assert "--command" in result.err
    assert not path.exists()


def test_hook_pre_still_runs_the_hook(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env.update(
        {
            "CORTEX_HOME": str(tmp_path / "home"),
            "CORTEX_EMBEDDER__KIND": "hashing",
            "CORTEX_DAEMON": "0",  # in-process: no service left behind
        }
    )

    proc = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "hook", "pre"],
        input="not json",
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )

    assert proc.returncode == 0
    assert "usage" not in proc.stderr  # the hook runner, not the CLI parser, took it


def test_a_stale_entry_of_ours_is_updated_in_place(tmp_path: Path) -> None:
    stale = {"type": "command", "command": "/old/venv/bin/cortex-tui --hook pre", "timeout": 5}
    other = {"type": "command", "command": "lint-prompt.sh"}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [other, {**stale, "async": False}]}]}}
    frozen = copy.deepcopy(settings)

    result, changes = hi.install(settings, "cortex-tui", tmp_path / "s.json")

    assert result["hooks"]["UserPromptSubmit"] == [{"hooks": [other, {**OUR_PRE, "async": False}]}]
    assert [(c.action, c.event) for c in changes if c.event == "UserPromptSubmit"] == [
        ("updated", "UserPromptSubmit")
    ]
    assert settings == frozen  # the input is not modified


def test_duplicates_of_ours_are_removed_and_emptied_groups_dropped(tmp_path: Path) -> None:
    settings = {
        "hooks": {
            "Stop": [
                {"hooks": [OUR_POST]},
                {"matcher": "*", "hooks": [OUR_POST]},
                {"hooks": [{"type": "command", "command": "say done"}, OUR_POST]},
            ]
        }
    }

    result, changes = hi.install(settings, "cortex-tui", tmp_path / "s.json")

    assert result["hooks"]["Stop"] == [
        {"hooks": [OUR_POST]},
        {"hooks": [{"type": "command", "command": "say done"}]},
    ]
    assert [c.action for c in changes if c.event == "Stop"] == ["removed", "removed"]


def test_an_earlier_versions_session_start_matcher_gives_way_to_every_source(
    tmp_path: Path,
) -> None:
    theirs = {"type": "command", "command": "echo resumed"}
    earlier = {"matcher": "compact|resume", "hooks": [theirs, OUR_PRE]}
    settings = {"hooks": {"SessionStart": [earlier]}}

    result, changes = hi.install(settings, "cortex-tui", tmp_path / "s.json")

    assert result["hooks"]["SessionStart"] == [
        {"matcher": "compact|resume", "hooks": [theirs]},
        {"hooks": [OUR_PRE]},
    ]
    assert [(c.action, c.matcher) for c in changes if c.event == "SessionStart"] == [
        ("removed", "compact|resume"),
        ("added", None),
    ]
    assert hi.install(result, "cortex-tui", tmp_path / "s.json")[1] == []


def test_uninstall_drops_only_the_containers_it_emptied(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    settings: dict[str, Any] = {"hooks": {"Notification": []}, "model": "opus"}
    installed, _ = hi.install(settings, "cortex-tui", path)

    restored, _ = hi.uninstall(installed, path)
    emptied, _ = hi.uninstall({"model": "opus", "hooks": {"Stop": [{"hooks": [OUR_POST]}]}}, path)

    assert restored == settings  # the empty list it found stays
    assert emptied == {"model": "opus"}  # the group, list and object it emptied go
    assert hi.uninstall({"hooks": {}}, path) == ({"hooks": {}}, [])


def test_uninstall_removes_ours_under_any_event_or_matcher(tmp_path: Path) -> None:
    custom = {"type": "command", "command": "python -m cortex_tui --hook post"}
    settings = {"hooks": {"PreCompact": [{"matcher": "auto", "hooks": [custom]}]}}

    result, changes = hi.uninstall(settings, tmp_path / "s.json")

    assert result == {}
    assert [(c.event, c.matcher) for c in changes] == [("PreCompact", "auto")]


def test_writing_keeps_permissions_and_follows_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    write_json(real, {})
    real.chmod(0o640)
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)

    hi.write_atomically(link, hi.render({"model": "opus"}))

    assert link.is_symlink()
    assert real.read_text() == '{\n  "model": "opus"\n}\n'
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]


def test_a_blank_or_missing_file_counts_as_empty(tmp_path: Path) -> None:
    blank = tmp_path / "blank.json"
    blank.write_text("\n")

    assert hi.load_settings_file(blank) == {}
    assert hi.load_settings_file(tmp_path / "missing.json") == {}
