"""Where a hook runs: the project (the repository of `cwd`) and its own files.

A project is its repository, not its folder's name: two unrelated `api` folders are two
projects, and a worktree or a second clone of one repository is the same project. The
key memories are filed under is the normalised `origin` URL (`github.com/acme/api`);
without a network remote it is the folder's name and the repository's first commit
(`api@1a2b3c4d5e6f`), which every worktree and clone shares; `project_keys.readable`
gives the short name a person or a model types. Earlier versions filed memories under
the git root's folder name (`legacy`); the engine moves them to the key the first time
it sees both.

Standard library only, and `subprocess` only when a repository is first met: the hook
process imports this module.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<rest>.*)$")
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/\\]+):(?P<path>[^\\].*)$")
GIT_SECONDS = 5.0
_GIT_LOCATIONS = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"})


class Project:
    """A repository as a project: `key` files its memories, `legacy` is what earlier
    versions filed them under (None when that is the key)."""

    __slots__ = ("key", "legacy")

    def __init__(self, key: str, legacy: str | None = None) -> None:
        self.key = key
        self.legacy = legacy if legacy != key else None


_known: dict[str, tuple[Project, Path, int]] = {}
"""Each repository met, by work tree: its project, its git config and that file's
modification time when the project was found."""


def project_for(cwd: str | None) -> str | None:
    """The key of `cwd`'s project: `CORTEX_PROJECT`, else its repository's, else None
    (global)."""
    project = project_at(cwd)
    return project.key if project else None


def project_at(cwd: str | None) -> Project | None:
    """`cwd`'s project: `CORTEX_PROJECT` as given, else the repository above `cwd`, else
    None (not in a repository: its memories are global)."""
    explicit = os.environ.get("CORTEX_PROJECT")
    if explicit:
        return Project(explicit)
    if not cwd:
        return None
    here = Path(cwd).expanduser()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return repository(folder)
    return None


def repository(root: Path) -> Project:
    """The project of the repository whose work tree is `root`. Git is asked once; after
    that a stat of its config tells whether a remote changed (a hook's path costs no
    git command). A repository without a commit yet is asked again each time: its
    first commit gives it its key."""
    cached = _known.get(str(root))
    if cached and _modified(cached[1]) == cached[2]:
        return cached[0]
    common = _git(root, "rev-parse", "--path-format=absolute", "--git-common-dir")
    config = Path(common) / "config" if common else root / ".git" / "config"
    seen = _modified(config)
    project, complete = _identify(root, Path(common) if common else None)
    if complete:
        _known[str(root)] = (project, config, seen)
    return project


def _identify(root: Path, common: Path | None) -> tuple[Project, bool]:
    """The project, and whether it is final (not the folder's name for want of git or
    of a first commit)."""
    legacy = root.name
    origin = _git(root, "config", "--get", "remote.origin.url")
    remote = normalised_remote(origin) if origin else None
    if remote:
        return Project(remote, legacy), True
    first = _git(root, "rev-list", "--max-parents=0", "HEAD")
    if not first:  # no commit yet (or no git): the folder's name, as before
        return Project(legacy), False
    name = _local_name(origin) or _main_folder_name(common) or legacy
    return Project(f"{name}@{first.split()[-1][:12]}", legacy), True


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1


def normalised_remote(url: str) -> str | None:
    """`host/path` of a network remote, lower case, without user, password, port and
    `.git`; None for a local path or `file://` (a clone of a folder)."""
    url = url.strip()
    match = _URL.match(url)
    if match:
        if match["scheme"].lower() == "file":
            return None
        authority, _, path = match["rest"].partition("/")
        host = authority.rpartition("@")[2]
        host = host.split("]")[0].lstrip("[") if host.startswith("[") else host.split(":")[0]
    else:
        scp = _SCP.match(url)
        if scp is None or len(scp["host"]) == 1:  # `C:/…` is a Windows path
            return None
        host, path = scp["host"].rpartition("@")[2], scp["path"]
    path = path.strip("/").removesuffix(".git").strip("/").lstrip("~")
    if not host or not path:
        return None
    return f"{host.lower()}/{path.lower()}"


def _local_name(origin: str | None) -> str | None:
    """The folder name of a remote that is a local path (a clone of a folder)."""
    if not origin:
        return None
    path = origin.strip().removeprefix("file://").rstrip("/\\")
    name = re.split(r"[/\\]", path)[-1].removesuffix(".git")
    return name or None


def _main_folder_name(common: Path | None) -> str | None:
    """The main work tree's folder name, from the repository's common git folder: a
    linked worktree's own folder name is its branch's, not the repository's."""
    if common is None:
        return None
    name = common.parent.name if common.name == ".git" else common.name.removesuffix(".git")
    return name or None


def _git(root: Path, *args: str) -> str | None:
    """A git command's output in `root`, or None when it fails or git is missing."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
            env=_git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def _git_env() -> dict[str, str]:
    """The environment without what would point git elsewhere than `-C` (a hook run
    from inside a git hook inherits `GIT_DIR`)."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATIONS}
    return {**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


def safe_name(session_id: str | None) -> str:
    """A session id usable as a file name: no path separators, no dots-only names."""
    cleaned = _UNSAFE.sub("_", session_id or "")[:100].strip(".")
    return cleaned or "no-session"
