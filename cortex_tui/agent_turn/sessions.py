"""A Claude Code turn built from what the hooks themselves receive.

Claude Code may run the Stop hook before the turn's lines reach the transcript, or before
the transcript file exists at all. Read alone, the transcript then loses the person's
prompt, and capture keeps only the reply ("Understood, Argo CD it is.") while the
decision the person stated is gone. Yet the prompt was known before the turn — the
UserPromptSubmit event carried it — and the reply is in the Stop event
(`last_assistant_message`). So each prompt is kept here, per session, until the turn is
captured; the turn is those two, with whatever the transcript holds between them.

A line taken from an event rather than the transcript is *owed*: the transcript will
show it later, when it catches up, and it must not be captured twice. The next read of
the transcript drops each owed line once, as it appears.

The state holds no text a turn has been captured from: owed lines and the last reply are
known by a digest of their start, and a kept prompt — waiting for its Stop — is kept as
the privacy step left it when the service took it (`redact`); its digest is of the words
as said, which is what the transcript will show.

The state of all sessions shares one lock, held only to read and write a session's small
file: a Stop reads its transcript and spools its turn between two holds, so no other
session's prompt waits behind that.

Standard library only, and no `typing`: the hook process spools a turn itself when the
service does not answer.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from cortex_tui.agent_turn.agents.claude_code.transcript import Turn

    Owed = list[Any]
    """[role, digest of the line's start, length of that start]."""

PROMPTS_KEPT = 8
"""Prompts of one session waiting for their Stop at most (a Stop that never came, an
interrupted turn): older ones are read from the transcript if at all."""
OWED_KEPT = 64
"""Lines the transcript still owes at most: one that never arrives is forgotten."""
PROMPT_CHARS = 65_536
KEY_CHARS = 512
"""A line is known by the start of its text, whitespace made single: a prompt kept
shortened, or a reply the transcript joins with the message before it, is still found."""
DIGEST_CHARS = 32
SESSION_DAYS = 30
"""A session's state is forgotten once untouched this long. Only a session resumed later
than that, whose transcript never caught up before, loses anything by it: its owed lines
are read again (and the capture's duplicate check keeps one memory of each)."""
STALE_TEMPORARY_S = 3600
"""A temporary state file this old was left by a process that died while writing it."""
STANDING_KEPT = 200
"""Memories of a session's standing block remembered at most: more than any budget gives."""
SESSION_START = "session-start"
"""What `take_standing` is given for a SessionStart, which always gets its block."""
_LONE_COMMAND = re.compile(r"/[\w:-]+")
"""A prompt that is one slash command and nothing more (`/compact`, `/review`)."""
_NOT_A_PROMPT = ("<command-name>", "<command-message>", "<local-command-stdout>", "<bash-")


class TurnPlan:
    """A turn put together by `SessionTurns.plan`, and what `settle` records once it is
    spooled: the kept prompts it used, the lines the transcript owes from now on, and
    the reply it took."""

    __slots__ = ("owed", "reply", "turns", "used")

    def __init__(
        self, turns: list[Turn], used: list[list[str]], owed: list[Owed], reply: str
    ) -> None:
        self.turns = turns
        self.used = used
        self.owed = owed
        self.reply = reply


class SessionTurns:
    """One session's kept prompts, owed lines, last reply taken and whether it has been
    given its standing context (`spool/sessions/<session>.json`)."""

    __slots__ = ("folder", "path")

    def __init__(self, home: Path, session_id: str | None) -> None:
        from cortex_tui.agent_turn.project import safe_name

        self.folder = home / "spool" / "sessions"
        self.path = self.folder / f"{safe_name(session_id)}.json"

    def before_turn(
        self,
        prompt: str | None,
        standing_key: str | None,
        redact: Callable[[str], str] | None = None,
    ) -> bool:
        """Keep `prompt` for the turn's capture (through `redact`, where the caller has
        the privacy step); with `standing_key` (the event the hook answers with
        context), whether the session's standing context is due now: not given yet, or
        given to this very event (a hook that gave up and asked again). Written whole or
        not at all, not fsynced: this runs before every turn, and a prompt lost to a
        power cut still has the transcript."""
        with _Locked(self.folder):
            state = self._load()
            changed = self._keep(state, prompt, redact) if prompt is not None else False
            due = False
            if standing_key is not None:
                given = state.get("standing")
                due = given is None or given == standing_key
                if given is None:
                    state["standing"] = standing_key
                    changed = True
            if changed:
                self._save(state, durable=False)
            return due

    def note_standing(self, memory_ids: list[str]) -> None:
        """The memories the session's standing block gave (at its start, or again after
        a compaction): its prompts are not given them again."""
        with _Locked(self.folder):
            state = self._load()
            if state["standing_ids"] != memory_ids:
                state["standing_ids"] = memory_ids[:STANDING_KEPT]
                self._save(state, durable=False)

    def standing_given(self) -> list[str]:
        """What `note_standing` kept (none for a session not given any)."""
        with _Locked(self.folder):
            return list(self._load()["standing_ids"])

    def plan(self, transcript: list[Turn], reply: str | None) -> TurnPlan:
        """The turn: kept prompts the transcript does not show, the transcript's new
        lines less those it owed, and the Stop's reply unless the transcript has it —
        nothing when the same Stop comes again with nothing new (the hook process and
        the service both handling one event)."""
        from cortex_tui.agent_turn.agents.claude_code.transcript import Turn

        with _Locked(self.folder):
            state = self._load()
        owed: list[Owed] = list(state["owed"])
        shown: list[Turn] = []
        for turn in transcript:
            paid = _owed_by(turn, owed)
            if paid is None:
                shown.append(turn)
            else:
                owed.remove(paid)
        seen = {_digest(turn.text) for turn in shown if turn.role == "user"}
        prompts = [p for p in state["prompts"] if p[1] not in seen]
        said = (reply or "").strip()
        replies = [] if not said or _shows_reply(shown, said) else [said]
        said_digest = _digest(said) if said else None
        if not shown and not prompts and replies and said_digest == state.get("reply"):
            replies = []  # this Stop was handled already
        turns = [Turn("user", text) for text, _ in prompts] + shown
        turns += [Turn("assistant", r) for r in replies]
        owed += [["user", key, KEY_CHARS] for _, key in prompts]
        owed += [["assistant", _digest(r), len(_key(r))] for r in replies]
        taken = said_digest or str(state.get("reply") or "")
        return TurnPlan(turns, list(state["prompts"]), owed[-OWED_KEPT:], taken)

    def settle(self, plan: TurnPlan) -> None:
        """The turn is spooled: its prompts are used (a prompt kept since stays), its
        event lines owed. Fsynced, as the transcript offset beside it is; a process that
        dies between the two may have a turn captured twice (the capture's duplicate
        check keeps one memory of it)."""
        with _Locked(self.folder):
            state = self._load()
            left = list(state["prompts"])
            for prompt in plan.used:
                if prompt in left:
                    left.remove(prompt)
            state.update({"prompts": left, "owed": plan.owed, "reply": plan.reply})
            self._save(state, durable=True)

    @staticmethod
    def _keep(state: dict[str, Any], prompt: str, redact: Callable[[str], str] | None) -> bool:
        prompt = prompt.strip()[:PROMPT_CHARS]
        if not prompt or prompt.startswith(_NOT_A_PROMPT) or _LONE_COMMAND.fullmatch(prompt):
            return False
        prompts: list[list[str]] = state["prompts"]
        key = _digest(prompt)
        if prompts and prompts[-1][1] == key:
            return False  # the same event again (a retried hook)
        kept = redact(prompt) if redact is not None else prompt
        state["prompts"] = [*prompts, [kept, key]][-PROMPTS_KEPT:]
        return True

    def _load(self) -> dict[str, Any]:
        """The state on file; a fresh session's when it is missing or unreadable."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict):
            data = {}
        reply = data.get("reply")
        return {
            "prompts": _kept_prompts(data.get("prompts"))[-PROMPTS_KEPT:],
            "owed": _owed_lines(data.get("owed"))[-OWED_KEPT:],
            "reply": _as_digest(reply) if isinstance(reply, str) else None,
            "standing": data.get("standing") if isinstance(data.get("standing"), str) else None,
            "standing_ids": _ids(data.get("standing_ids")),
        }

    def _save(self, state: dict[str, Any], *, durable: bool) -> None:
        private_dir(self.folder)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open_private(tmp, "w", encoding="utf-8") as handle:
            json.dump(state, handle, ensure_ascii=False)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def _ids(raw: object) -> list[str]:
    if not isinstance(raw, list):
        return []
    return [item for item in raw if isinstance(item, str)][:STANDING_KEPT]


def prune_sessions(home: Path, older_than_days: float = SESSION_DAYS) -> int:
    """Forget sessions untouched for `older_than_days` (their owed lines, kept in case
    the session is resumed), and temporary files a dead writer left; how many sessions
    were forgotten."""
    folder = home / "spool" / "sessions"
    if not folder.is_dir():
        return 0
    now = time.time()
    forgotten = 0
    with _Locked(folder):
        for path in folder.iterdir():
            stale = STALE_TEMPORARY_S if path.name.endswith(".tmp") else older_than_days * 86_400
            if path.name == _Locked.NAME or not path.name.endswith((".json", ".tmp")):
                continue
            try:
                if path.stat().st_mtime < now - stale:
                    path.unlink()
                    forgotten += path.name.endswith(".json")
            except OSError:
                continue
    return forgotten


def rewrite_sessions(home: Path, state: Callable[[Any], Any], *, write: bool = True) -> int:
    """Pass each session's state through `state` (a JSON value in, one out), under the
    lock, replacing the files it changes (`scrub`); how many it changed, or would
    change when not `write`."""
    folder = home / "spool" / "sessions"
    if not folder.is_dir():
        return 0
    changed = 0
    with _Locked(folder):
        for path in sorted(folder.glob("*.json")):
            try:
                with open(path, encoding="utf-8") as handle:
                    before = json.load(handle)
            except (OSError, ValueError):
                continue
            after = state(before)
            if after != before and write:
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                with open_private(tmp, "w", encoding="utf-8") as handle:
                    json.dump(after, handle, ensure_ascii=False)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, path)
            changed += after != before
    return changed


class _Locked:
    """The sessions' lock, held for one read and write of a state file (a class, not
    `contextlib`: the hook process would pay for its import)."""

    NAME = ".lock"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._handle: Any = None

    def __enter__(self) -> None:
        private_dir(self.folder)
        self._handle = open_private(self.folder / self.NAME, "a")
        fcntl.flock(self._handle, fcntl.LOCK_EX)

    def __exit__(self, *_exc: object) -> None:
        self._handle.close()  # closing releases the lock


def _owed_by(turn: Turn, owed: list[Owed]) -> Owed | None:
    """The owed line `turn` pays off: a prompt by its start, a reply also when the
    transcript joined it with the message before it (found at a word's start)."""
    text = " ".join(turn.text.split())
    whole = _digest(text)
    joined: dict[int, set[str]] = {}
    for line in owed:
        role, key, length = line
        if role != turn.role:
            continue
        if key == whole:
            return line
        if role == "assistant":
            if length not in joined:
                starts = [0, *(i + 1 for i, char in enumerate(text) if char == " ")]
                joined[length] = {_hash(text[i : i + length]) for i in starts}
            if key in joined[length]:
                return line
    return None


def _shows_reply(shown: list[Turn], reply: str) -> bool:
    """Whether the transcript's new lines hold the Stop's reply (streamed blocks are
    joined with blank lines there; the event may hold only the last message)."""
    said = " ".join(reply.split())
    return any(turn.role == "assistant" and said in " ".join(turn.text.split()) for turn in shown)


def _key(text: str) -> str:
    return " ".join(text.split())[:KEY_CHARS]


def _digest(text: str) -> str:
    """What a line is known by: a digest of its start, never its words."""
    return _hash(_key(text))


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:DIGEST_CHARS]


def _as_digest(key: str) -> str:
    """A key as this version keeps it: a state written by an older one held the words."""
    is_digest = len(key) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in key)
    return key if is_digest else _hash(key)


def _kept_prompts(value: object) -> list[list[str]]:
    """[text, digest] per kept prompt; an older state's bare texts get their digest."""
    kept = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, str):
            kept.append([item, _digest(item)])
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            kept.append([item[0], item[1]])
    return kept


def _owed_lines(value: object) -> list[Owed]:
    """[role, digest, length] per owed line; an older state's [role, words] become one."""
    lines: list[Owed] = []
    for line in value if isinstance(value, list) else []:
        if not isinstance(line, list) or not all(isinstance(x, str) for x in line[:2]):
            continue
        if len(line) == 3 and isinstance(line[2], int):
            lines.append([line[0], line[1], line[2]])
        elif len(line) == 2:
            lines.append([line[0], _as_digest(line[1]), len(line[1])])
    return lines


def standing_key(prompt: str) -> str:
    """What `before_turn` records for a prompt given the standing context."""
    return _digest(prompt)[:16]
