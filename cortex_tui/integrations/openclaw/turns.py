"""The turns of an OpenClaw session that were not captured yet.

OpenClaw's `agent_end` hands a plugin the session's whole history every time, not the
turn that just ended. Taking only the last turn would lose a turn whose `agent_end` never
reached us (the engine was down past the plugin's timeout, the agent was killed); taking
the whole history would capture every turn again on each one. So each session keeps how
many of its messages were captured, with a digest of the last of them: the next event
captures what follows. When that message is no longer where it was (OpenClaw compacted
the history into a summary), the history was rewritten and only its last turn is new.

Our own context block is taken out of a prompt before it is captured: OpenClaw writes
`prependContext` into the user's message, and a memory must not be captured again from
the block that recalled it.

Standard library only, and no `typing`: the hook process spools a turn itself when the
service does not answer.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

from cortex_tui.integrations.events import message_text
from cortex_tui.private import open_private, private_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Message = dict[str, Any]

STATE_FOLDER = "openclaw-sessions"
"""Under the spool folder: one small file per session."""
ROLES = {"user": "User", "assistant": "Assistant"}
"""Tool calls and their results are the agent's working, not the conversation."""
_OUR_BLOCK = re.compile(r"<cortex_memories>.*?</cortex_memories>\s*", re.DOTALL)


class OpenClawSession:
    """What one session has had captured; `session` is a file-safe name."""

    def __init__(self, spool_folder: str, session: str) -> None:
        self.folder = os.path.join(spool_folder, STATE_FOLDER)
        self.path = os.path.join(self.folder, f"{session}.json")

    def new_turns(self, messages: list[Message]) -> list[str]:
        """The text of each turn after the captured part, oldest first ("User: …" and
        "Assistant: …" paragraphs, as a Claude Code turn reads)."""
        return [text for text in map(_turn_text, _turns(messages[self._start(messages) :])) if text]

    def captured(self, messages: list[Message]) -> None:
        """Record `messages` as captured (after their turns are spooled: a crash between
        the two spools them again, and the spool keeps one entry per turn)."""
        if not messages:
            return
        state = {"count": len(messages), "last": _digest(messages[-1])}
        private_dir(self.folder)
        temporary = self.path + ".tmp"
        with open_private(temporary, "w") as handle:
            json.dump(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)

    def _start(self, messages: list[Message]) -> int:
        """Where the messages not captured yet begin."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                state = json.load(handle)
            count, last = int(state["count"]), str(state["last"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0  # a session new to us: all of it is new
        if 0 < count <= len(messages) and _digest(messages[count - 1]) == last:
            return count
        return _last_prompt(messages)


def _turns(messages: list[Message]) -> list[list[Message]]:
    """Each user prompt with the messages that answer it; messages before the first
    prompt (the rest of a turn captured earlier) make a turn of their own."""
    turns: list[list[Message]] = []
    for message in messages:
        if (message.get("role") == "user" and _prompt(message)) or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def _turn_text(turn: list[Message]) -> str:
    paragraphs = []
    for message in turn:
        label = ROLES.get(str(message.get("role", "")))
        text = _prompt(message) if message.get("role") == "user" else message_text(message)
        if label and text.strip():
            paragraphs.append(f"{label}: {text.strip()}")
    return "\n\n".join(paragraphs)


def _prompt(message: Message) -> str:
    """A user message's words, without the context block we gave it."""
    return _OUR_BLOCK.sub("", message_text(message)).strip()


def _last_prompt(messages: list[Message]) -> int:
    prompts = [i for i, m in enumerate(messages) if m.get("role") == "user" and _prompt(m)]
    return prompts[-1] if prompts else len(messages)


def _digest(message: Message) -> str:
    """A message known by its role and text (ids and timestamps are not in every
    build's messages)."""
    seen = f"{message.get('role', '')}\0{message_text(message)}"
    return hashlib.sha256(seen.encode("utf-8", "replace")).hexdigest()[:32]
