"""A project is its repository: worktrees and clones share memories, two unrelated
folders of one name do not, and memories filed under a folder name by earlier versions
move to the repository's key the first time a hook runs there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cortex_tui.agent_turn.project import normalised_remote, project_at, project_for
from cortex_tui.project_keys import readable
from tests.conftest import Cli
from tests.hooks.test_hooks import hook


def git(where: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    done = subprocess.run(
        ["git", "-C", str(where), *args], check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def repository(path: Path, *, first: str = "first", origin: str | None = None) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text(first)
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", first)
    if origin:
        git(path, "remote", "add", "origin", origin)
    return path


@pytest.fixture(autouse=True)
def no_explicit_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CORTEX_PROJECT", raising=False)


def test_a_remote_names_the_project_however_it_is_spelled(tmp_path: Path) -> None:
    ssh = repository(tmp_path / "a" / "api", origin="git@github.com:Acme/API.git")
    https = repository(tmp_path / "b" / "api-checkout", origin="https://github.com/acme/api")
    assert project_for(str(ssh)) == project_for(str(https / "sub")) == "github.com/acme/api"
    assert readable("github.com/acme/api") == "api"
    assert project_at(str(ssh)).legacy == "api"  # type: ignore[union-attr]
    for spelled in (
        "ssh://git@github.com:22/acme/api.git",
        "https://user:secret@github.com/acme/api.git/",
        "git://github.com/acme/api",
    ):
        assert normalised_remote(spelled) == "github.com/acme/api"
    for local in ("/srv/git/api.git", "../api", "file:///srv/git/api", "C:/code/api"):
        assert normalised_remote(local) is None


def test_two_unrelated_repositories_with_one_folder_name_are_two_projects(
    tmp_path: Path,
) -> None:
    one = repository(tmp_path / "work" / "api", first="billing")
    other = repository(tmp_path / "play" / "api", first="toy")
    keys = {project_for(str(one)), project_for(str(other))}
    assert len(keys) == 2
    assert {readable(k) for k in keys if k} == {"api"}


def test_a_worktree_and_a_clone_of_a_local_repository_are_the_same_project(
    tmp_path: Path,
) -> None:
    main = repository(tmp_path / "api")
    git(main, "worktree", "add", "-q", str(tmp_path / "api-feature"), "-b", "feature")
    git(tmp_path, "clone", "-q", str(main), str(tmp_path / "elsewhere" / "api-copy"))
    key = project_for(str(main))
    assert key is not None and key.startswith("api@")
    assert project_for(str(tmp_path / "api-feature")) == key
    assert project_for(str(tmp_path / "elsewhere" / "api-copy")) == key


def test_a_folder_outside_any_repository_is_global_and_cortex_project_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loose = tmp_path / "notes"
    loose.mkdir()
    assert project_for(str(loose)) is None
    unborn = tmp_path / "fresh"
    unborn.mkdir()
    git(unborn, "init", "-q")
    assert project_for(str(unborn)) == "fresh"  # no commit yet: the folder's name
    monkeypatch.setenv("CORTEX_PROJECT", "chosen")
    assert project_for(str(loose)) == project_for(str(unborn)) == "chosen"


def test_a_remote_added_or_a_first_commit_made_changes_the_key(tmp_path: Path) -> None:
    unborn = tmp_path / "tool"
    unborn.mkdir()
    git(unborn, "init", "-q")
    assert project_for(str(unborn)) == "tool"
    (unborn / "a.txt").write_text("a")
    git(unborn, "add", "a.txt")
    git(unborn, "commit", "-q", "-m", "first")
    local = project_for(str(unborn))
    assert local is not None and local.startswith("tool@")
    git(unborn, "remote", "add", "origin", "https://example.org/team/tool.git")
    assert project_for(str(unborn)) == "example.org/team/tool"


def prompt(cwd: Path, text: str) -> str:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": text, "cwd": str(cwd)}
    return json.dumps({**event, "session_id": "s1"})


def context(home: Path, cwd: Path, text: str) -> str:
    done = hook(home, "pre", prompt(cwd, text))
    assert done.returncode == 0, done.stderr
    if not done.stdout:
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_memories_filed_under_the_folder_name_move_to_the_repository(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "home")
    said = cli("remember", "The billing API listens on port 8443", "--project", "api")
    assert said.code == 0, said.err
    cli("remember", "The toy API listens on port 9000", "--project", "toy")
    work = repository(tmp_path / "work" / "api", origin="git@github.com:acme/api.git")

    given = context(cli.home, work, "which port does the billing API listen on?")
    assert "port 8443" in given and "port 9000" not in given
    assert "· api]" in given  # the short name in the block
    listed = json.loads(cli("list", "--json", "--project", "github.com/acme/api").out)
    assert [m["content"] for m in listed["memories"]] == ["The billing API listens on port 8443"]
    assert json.loads(cli("list", "--json", "--project", "api").out)["total"] == 1  # short name

    # An unrelated `api` repository does not see them: they belong to acme's now.
    other = repository(tmp_path / "play" / "api", first="toy")
    assert "port 8443" not in context(cli.home, other, "which port does the billing API use?")

    undone = cli("undo")
    assert undone.code == 0 and "adopt project (api → github.com/acme/api)" in undone.out
    again = json.loads(cli("list", "--json", "--project", "github.com/acme/api").out)
    assert again["total"] == 0


def test_a_short_name_two_repositories_share_is_taken_as_it_is(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "home")
    for key in ("github.com/acme/api", "gitlab.com/other/api"):
        assert cli("remember", f"Deploys of {key} go through CI", "--project", key).code == 0
    assert json.loads(cli("list", "--json", "--project", "api").out)["total"] == 0
    one = json.loads(cli("list", "--json", "--project", "gitlab.com/other/api").out)
    assert one["total"] == 1
