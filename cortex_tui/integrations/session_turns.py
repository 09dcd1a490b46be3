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
    from pathlib import Path
    from typing import Any

    from cortex_tui.capture.transcript import Turn

PROMPTS_KEPT = 8
"""Prompts of one session waiting for their Stop at most (a Stop that never came, an
interrupted turn): older ones are read from the transcript if at all."""
OWED_KEPT = 64
"""Lines the transcript still owes at most: one that never arrives is forgotten."""
PROMPT_CHARS = 65_536
KEY_CHARS = 512
"""A line is known by the start of its text, whitespace made single: a prompt kept
shortened, or a reply the transcript joins with the message before it, is still found."""
SESSION_DAYS = 30
"""A session's state is forgotten once untouched this long. Only a session resumed later
than that, whose transcript never caught up before, loses anything by it: its owed lines
are read again (and the capture's duplicate check keeps one memory of each)."""
STALE_TEMPORARY_S = 3600
"""A temporary state file this old was left by a process that died while writing it."""
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
        self, turns: list[Turn], used: list[str], owed: list[list[str]], reply: str
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
        from cortex_tui.integrations.project import safe_name

        self.folder = home / "spool" / "sessions"
        self.path = self.folder / f"{safe_name(session_id)}.json"

    def before_turn(self, prompt: str | None, standing_key: str | None) -> bool:
        """Keep `prompt` for the turn's capture; with `standing_key` (the event the hook
        answers with context), whether the session's standing context is due now: not
        given yet, or given to this very event (a hook that gave up and asked again).
        Written whole or not at all, not fsynced: this runs before every turn, and a
        prompt lost to a power cut still has the transcript."""
        with _Locked(self.folder):
            state = self._load()
            changed = self._keep(state, prompt) if prompt is not None else False
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

    def plan(self, transcript: list[Turn], reply: str | None) -> TurnPlan:
        """The turn: kept prompts the transcript does not show, the transcript's new
        lines less those it owed, and the Stop's reply unless the transcript has it —
        nothing when the same Stop comes again with nothing new (the hook process and
        the service both handling one event)."""
        from cortex_tui.capture.transcript import Turn

        with _Locked(self.folder):
            state = self._load()
        owed: list[list[str]] = list(state["owed"])
        shown: list[Turn] = []
        for turn in transcript:
            paid = _owed_by(turn, owed)
            if paid is None:
                shown.append(turn)
            else:
                owed.remove(paid)
        seen = {_key(turn.text) for turn in shown if turn.role == "user"}
        prompts = [p for p in state["prompts"] if _key(p) not in seen]
        said = (reply or "").strip()
        replies = [] if not said or _shows_reply(shown, said) else [said]
        if not shown and not prompts and replies and _key(said) == state.get("reply"):
            replies = []  # this Stop was handled already
        turns = [Turn("user", p) for p in prompts] + shown + [Turn("assistant", r) for r in replies]
        owed += [["user", _key(p)] for p in prompts] + [["assistant", _key(r)] for r in replies]
        taken = _key(said) if said else str(state.get("reply") or "")
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
    def _keep(state: dict[str, Any], prompt: str) -> bool:
        prompt = prompt.strip()[:PROMPT_CHARS]
        if not prompt or prompt.startswith(_NOT_A_PROMPT) or _LONE_COMMAND.fullmatch(prompt):
            return False
        prompts: list[str] = state["prompts"]
        if prompts and prompts[-1] == prompt:
            return False  # the same event again (a retried hook)
        state["prompts"] = [*prompts, prompt][-PROMPTS_KEPT:]
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
        owed = data.get("owed")
        return {
            "prompts": _strings(data.get("prompts"))[-PROMPTS_KEPT:],
            "owed": [
                [line[0], line[1]]
                for line in (owed if isinstance(owed, list) else [])
                if isinstance(line, list) and len(_strings(line)) == len(line) == 2
            ][-OWED_KEPT:],
            "reply": data.get("reply") if isinstance(data.get("reply"), str) else None,
            "standing": data.get("standing") if isinstance(data.get("standing"), str) else None,
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


def _owed_by(turn: Turn, owed: list[list[str]]) -> list[str] | None:
    """The owed line `turn` pays off: a prompt by its key, a reply also when the
    transcript joined it with the message before it."""
    text = " ".join(turn.text.split())
    for line in owed:
        role, key = line
        if role == turn.role and (key == text[:KEY_CHARS] or (role == "assistant" and key in text)):
            return line
    return None


def _shows_reply(shown: list[Turn], reply: str) -> bool:
    """Whether the transcript's new lines hold the Stop's reply (streamed blocks are
    joined with blank lines there; the event may hold only the last message)."""
    said = " ".join(reply.split())
    return any(turn.role == "assistant" and said in " ".join(turn.text.split()) for turn in shown)


def _key(text: str) -> str:
    return " ".join(text.split())[:KEY_CHARS]


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def standing_key(prompt: str) -> str:
    """What `before_turn` records for a prompt given the standing context."""
    return hashlib.sha256(_key(prompt).encode()).hexdigest()[:16]
