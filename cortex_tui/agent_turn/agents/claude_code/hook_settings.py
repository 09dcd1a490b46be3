"""Add or remove cortex-tui's hooks in a Claude Code settings file.

The settings file belongs to the person: it holds their permissions, env, other tools'
hooks. So every change here is surgical. Unrelated keys, events, matchers and commands are
kept as they are and in order, our entries are recognised by their command (so installing
twice changes nothing and uninstalling finds them again), and the file is replaced
atomically so a crash never leaves Claude Code with half a settings file.

Standard library only: `cortex-tui hook install` must work before any store exists.
"""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from cortex_tui.errors import InvalidInputError
from cortex_tui.untrusted.files import MIB, read_whole

Scope = Literal["user", "project", "local"]
Action = Literal["added", "updated", "removed"]
JsonObject = dict[str, Any]

SETTINGS_LIMIT = 16 * MIB
"""Larger than any settings file a person writes; a bigger one is not a settings file."""

PROGRAM_NAMES = ("cortex-tui", "cortex_tui")
"""A command naming either spelling (`cortex-tui`, `python -m cortex_tui`) can be ours."""


@dataclass(frozen=True)
class HookSpec:
    """One hook as agent-hooks.md documents it for Claude Code."""

    event: str
    kind: Literal["pre", "post"]
    timeout: int
    matcher: str | None = None


OUR_HOOKS = (
    HookSpec("UserPromptSubmit", "pre", 10),
    HookSpec("Stop", "post", 30),
    # Every source (startup, resume, clear, compact): a starting session starts the
    # service for its first prompt and gets the project's standing context; after a
    # compaction or a resume, the recalled context is given again.
    HookSpec("SessionStart", "pre", 10),
)


@dataclass(frozen=True)
class Change:
    action: Action
    event: str
    matcher: str | None
    command: str

    def describe(self) -> str:
        sign = "-" if self.action == "removed" else "+"
        where = f"{self.event} [{self.matcher}]" if self.matcher else self.event
        return f"{sign} {self.action} {where}: {self.command}"

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)


class SettingsFileError(Exception):
    """The settings file cannot be read, parsed or written; the message names the fix."""


def settings_path(scope: Scope, *, home: Path, cwd: Path) -> Path:
    """Where Claude Code reads each scope's settings."""
    if scope == "user":
        return home / ".claude" / "settings.json"
    name = "settings.json" if scope == "project" else "settings.local.json"
    return cwd / ".claude" / name


def hook_command(executable: str, kind: str) -> str:
    return f"{executable} --hook {kind}"


def installed_program() -> str:
    """This installation's script by absolute path, since an agent may start it with a
    PATH that lacks the venv; then whatever `cortex-tui` is on PATH; then the bare name."""
    script = installed_script()
    if script is not None:
        return str(script)
    return shutil.which("cortex-tui") or "cortex-tui"


def installed_script() -> Path | None:
    """The `cortex-tui` script of this very installation, when it has one."""
    script = Path(sysconfig.get_path("scripts")) / "cortex-tui"
    return script if script.is_file() and os.access(script, os.X_OK) else None


def is_recognised(executable: str) -> bool:
    """Whether hooks built on `executable` will be found again by a later run."""
    return our_kind(hook_command(executable, "pre")) == "pre"


def our_kind(command: str) -> str | None:
    """`pre`/`post` when `command` is one of our hooks, else None.

    Matching on the command, not on an exact string, lets a later install find entries
    written with another executable path (a moved venv) and update them in place.
    """
    if not any(name in command for name in PROGRAM_NAMES):
        return None
    if "--hook pre" in command:
        return "pre"
    if "--hook post" in command:
        return "post"
    return None


def load_settings_file(path: Path) -> JsonObject:
    """The file's JSON object; a missing or blank file is an empty one."""
    if not path.exists():
        return {}
    try:
        data = read_whole(path, limit=SETTINGS_LIMIT, what="settings file", fix="check the path")
        text = data.decode("utf-8-sig")
    except InvalidInputError as exc:
        raise SettingsFileError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise SettingsFileError(
            f"cannot read {path}: {exc}; fix its encoding (UTF-8) and retry"
        ) from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(
            f"{path} is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
            "fix or remove it, then retry"
        ) from None
    if not isinstance(settings, dict):
        raise SettingsFileError(
            f"{path} holds a JSON {type(settings).__name__}, not an object; "
            "fix or remove it, then retry"
        )
    return settings


def install(settings: JsonObject, executable: str, path: Path) -> tuple[JsonObject, list[Change]]:
    """`settings` with our hooks present exactly once each, and what had to change.

    The input is not modified: containers on the way to a change are copied, everything
    else is shared. An entry of ours with a stale command or timeout is updated where it
    stands (keeping any extra keys the person added); extra copies of it under the same
    event and matcher are removed, since Claude Code would run each of them.
    """
    hooks = dict(object_at(settings, "hooks", path))
    changes: list[Change] = []
    for spec in OUR_HOOKS:
        groups = hooks.get(spec.event, [])
        if not isinstance(groups, list):
            raise SettingsFileError(
                f'{path}: "hooks.{spec.event}" is a JSON {type(groups).__name__}, '
                "not a list; fix or remove it, then retry"
            )
        desired = {
            "type": "command",
            "command": hook_command(executable, spec.kind),
            "timeout": spec.timeout,
        }
        new_groups, event_changes = _place(groups, spec, desired)
        hooks[spec.event] = new_groups
        changes += event_changes
    if not changes:
        return settings, []
    return {**settings, "hooks": hooks}, changes


def uninstall(settings: JsonObject, path: Path) -> tuple[JsonObject, list[Change]]:
    """`settings` without any of our hooks, under any event or matcher.

    A group, event list or `hooks` object left empty by a removal is dropped too (Claude
    Code accepts them, but they would be litter we created); ones that were empty already
    stay.
    """
    hooks = object_at(settings, "hooks", path)
    new_hooks: JsonObject = {}
    changes: list[Change] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        new_groups: list[Any] = []
        for group in groups:
            kept, removed = _without_ours(group)
            changes += [Change("removed", event, _matcher(group), cmd) for cmd in removed]
            if not removed or kept:
                new_groups.append({**group, "hooks": kept} if removed else group)
        if new_groups or not groups:
            new_hooks[event] = new_groups
    if not changes:
        return settings, []
    result = dict(settings)
    if new_hooks:
        result["hooks"] = new_hooks
    else:
        del result["hooks"]
    return result, changes


def render(settings: JsonObject) -> str:
    """The file's text: 2-space indentation like Claude Code writes, a final newline."""
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so readers see the old file or the new one, never half.

    A symlinked settings file (dotfile managers) is followed, so the link survives. The
    temporary file is created in the target's folder, since `os.replace` is atomic only
    within one file system. An existing file keeps its permissions; a new one gets what a
    plain `open()` would give it, not mkstemp's 0600.
    """
    target = path.resolve()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = _mode_for(target)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise SettingsFileError(f"cannot write {path}: {exc}; check the folder and retry") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise SettingsFileError(f"cannot write {path}: {exc}; check the folder and retry") from None


def object_at(settings: JsonObject, key: str, path: Path) -> JsonObject:
    """`settings[key]`, an empty object when absent; anything else is an error naming it."""
    value = settings.get(key, {})
    if not isinstance(value, dict):
        raise SettingsFileError(
            f'{path}: "{key}" is a JSON {type(value).__name__}, not an object; '
            f'fix it (e.g. "{key}": {{}}) or remove the key, then retry'
        )
    return value


def _matcher(group: Any) -> str | None:
    """The group's matcher; absent, "" and "*" all mean "every occurrence"."""
    matcher = group.get("matcher") if isinstance(group, dict) else None
    return matcher if isinstance(matcher, str) and matcher not in ("", "*") else None


def _entries(group: Any) -> list[Any]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        return list(group["hooks"])
    return []


def _command(entry: Any) -> str | None:
    command = entry.get("command") if isinstance(entry, dict) else None
    return command if isinstance(command, str) else None


def _place(
    groups: list[Any], spec: HookSpec, desired: JsonObject
) -> tuple[list[Any], list[Change]]:
    """One event's groups with `desired` present once under the spec's matcher; ours
    under another matcher (an earlier version's `compact|resume`) are removed, since
    Claude Code would run both."""
    new_groups: list[Any] = []
    changes: list[Change] = []
    placed = False
    for group in groups:
        if _matcher(group) != spec.matcher:
            kept, removed = _without_ours(group, spec.kind)
            changes += [Change("removed", spec.event, _matcher(group), cmd) for cmd in removed]
            if not removed:
                new_groups.append(group)
            elif kept:
                new_groups.append({**group, "hooks": kept})
            continue
        entries: list[Any] = []
        for entry in _entries(group):
            command = _command(entry)
            if command is None or our_kind(command) != spec.kind:
                entries.append(entry)
            elif placed:
                changes.append(Change("removed", spec.event, spec.matcher, command))
            else:
                placed = True
                updated = {**entry, **desired}
                entries.append(updated)
                if updated != entry:
                    changes.append(Change("updated", spec.event, spec.matcher, desired["command"]))
        if entries == _entries(group):
            new_groups.append(group)
        elif entries:
            new_groups.append({**group, "hooks": entries})
    if not placed:
        group = {"matcher": spec.matcher} if spec.matcher else {}
        new_groups.append({**group, "hooks": [desired]})
        changes.append(Change("added", spec.event, spec.matcher, desired["command"]))
    return new_groups, changes


def _without_ours(group: Any, kind: str | None = None) -> tuple[list[Any], list[str]]:
    """The group's entries that are not ours (of `kind`, when given), and the commands
    of those that were."""
    kept: list[Any] = []
    removed: list[str] = []
    for entry in _entries(group):
        command = _command(entry)
        found = our_kind(command) if command is not None else None
        if command is not None and found and kind in (None, found):
            removed.append(command)
        else:
            kept.append(entry)
    return kept, removed


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
