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

Standard library only, and no `typing`: the hook process spools a turn itself when the
service does not answer.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re

from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO

    from cortex_tui.capture.transcript import Turn

PROMPTS_KEPT = 8
"""Prompts of one session waiting for their Stop at most (a Stop that never came, an
interrupted turn): older ones are read from the transcript if at all."""
OWED_KEPT = 64
"""Lines the transcript still owes at most: one that never arrives is forgotten."""
PROMPT_CHARS = 65_536
SESSION_DAYS = 30
"""A session's state is forgotten once untouched this long. Only a session resumed later
than that, whose transcript never caught up before, loses anything by it: its owed lines
are read again (and the capture's duplicate check keeps one memory of each)."""
_SLASH_COMMAND = re.compile(r"/[\w:.-]+(\s|$)")
_NOT_A_PROMPT = ("<command-name>", "<command-message>", "<local-command-stdout>", "<bash-")


class SessionTurns:
    """One session's kept prompts, owed lines and whether it was given its standing
    context, locked while in use (one lock for all
    sessions: each holds it for a file's read and write): the Stop of one turn and the
    next prompt's UserPromptSubmit may meet (a prompt typed while the hook runs), and
    neither may lose what the other wrote.

    `with SessionTurns(home, session_id) as session:` then `keep_prompt` and
    `standing_due` before a turn, or `whole_turn` and, once the turn is spooled,
    `settle` after it."""

    __slots__ = ("_lock", "_next", "owed", "path", "prompts", "standing_given")

    def __init__(self, home: Path, session_id: str | None) -> None:
        from cortex_tui.integrations.project import safe_name

        self.path = home / "spool" / "sessions" / f"{safe_name(session_id)}.json"
        self.prompts: list[str] = []
        self.owed: list[str] = []
        self.standing_given = False
        self._next: tuple[list[str], list[str]] | None = None
        self._lock: IO[str] | None = None

    def __enter__(self) -> SessionTurns:
        private_dir(self.path.parent)
        self._lock = open_private(self.path.parent / ".lock", "a")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        self._load()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._lock is not None:
            self._lock.close()  # closing releases the lock
            self._lock = None

    def keep_prompt(self, prompt: str) -> None:
        """Keep a UserPromptSubmit's prompt for the turn's capture. Written whole or not
        at all, not fsynced: this runs before every turn, and a prompt lost to a power
        cut still has the transcript."""
        prompt = prompt.strip()[:PROMPT_CHARS]
        if not prompt or prompt.startswith(_NOT_A_PROMPT) or _SLASH_COMMAND.match(prompt):
            return
        if self.prompts and self.prompts[-1] == prompt:
            return  # the same event again (a retried hook)
        self.prompts = [*self.prompts, prompt][-PROMPTS_KEPT:]
        self._save(durable=False)

    def standing_due(self) -> bool:
        """Whether the session is yet to be given the project's standing context (its
        SessionStart found no service running, or came before this version); from now
        on it counts as given."""
        if self.standing_given:
            return False
        self.standing_given = True
        self._save(durable=False)
        return True

    def whole_turn(self, transcript: list[Turn], reply: str | None) -> list[Turn]:
        """The turn: kept prompts the transcript does not show, the transcript's new
        lines less those it owed, and the Stop's reply unless the transcript has it."""
        from cortex_tui.capture.transcript import Turn

        owed = list(self.owed)
        shown: list[Turn] = []
        for turn in transcript:
            digest = _digest(turn.role, turn.text)
            if digest in owed:
                owed.remove(digest)
            else:
                shown.append(turn)
        seen = {_digest(turn.role, turn.text) for turn in shown}
        prompts = [Turn("user", p) for p in self.prompts if _digest("user", p) not in seen]
        said = (reply or "").strip()
        replies = (
            [Turn("assistant", said)]
            if said and not any(t.role == "assistant" and _same_reply(said, t.text) for t in shown)
            else []
        )
        owed += [_digest(turn.role, turn.text) for turn in (*prompts, *replies)]
        self._next = ([], owed[-OWED_KEPT:])
        return [*prompts, *shown, *replies]

    def settle(self) -> None:
        """The turn is spooled: its prompts are used, its event lines owed. Fsynced, as
        the transcript offset beside it is: a replay must not capture twice."""
        if self._next is not None:
            self.prompts, self.owed = self._next
            self._next = None
            self._save(durable=True)

    def _load(self) -> None:
        """The state on file; none (a fresh session) when it is missing or unreadable."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return
        if isinstance(data, dict):
            self.prompts = _strings(data.get("prompts"))[-PROMPTS_KEPT:]
            self.owed = _strings(data.get("owed"))[-OWED_KEPT:]
            self.standing_given = data.get("standing") is True

    def _save(self, *, durable: bool) -> None:
        if not self.prompts and not self.owed and not self.standing_given:
            try:
                os.unlink(self.path)
            except FileNotFoundError:  # contextlib would cost the hook its import
                return
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open_private(tmp, "w", encoding="utf-8") as handle:
            state = {"prompts": self.prompts, "owed": self.owed, "standing": self.standing_given}
            json.dump(state, handle, ensure_ascii=False)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def prune_sessions(home: Path, older_than_days: float = SESSION_DAYS) -> int:
    """Forget sessions untouched for `older_than_days` (their owed lines, kept in case
    the session is resumed); how many were forgotten."""
    import time

    folder = home / "spool" / "sessions"
    cutoff = time.time() - older_than_days * 86_400
    forgotten = 0
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                forgotten += 1
        except OSError:
            continue
    return forgotten


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _same_reply(reply: str, text: str) -> bool:
    """Whether the transcript's assistant text is the Stop's reply (streamed blocks are
    joined with blank lines there; the event may hold only the last message)."""
    said, shown = " ".join(reply.split()), " ".join(text.split())
    return said == shown or said in shown


def _digest(role: str, text: str) -> str:
    return hashlib.sha256(f"{role}\0{' '.join(text.split())}".encode()).hexdigest()[:24]
