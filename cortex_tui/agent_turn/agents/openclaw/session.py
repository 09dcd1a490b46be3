"""The turns of an OpenClaw session that were not captured yet.

OpenClaw's `agent_end` hands a plugin the session's whole history every time, not the
turn that just ended. Taking only the last turn would lose a turn whose `agent_end` never
reached us (the engine was down past the plugin's timeout, the agent was killed); taking
the whole history would capture every turn again on each one. So each session keeps how
many of its messages were captured, with a digest of the last of them: the next event
captures what follows. When that message is no longer where it was, it is looked for
from the end (sync took some turns from OpenClaw's session store since); when it is
nowhere (OpenClaw compacted the history into a summary), only the last turn is new.

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
    """What one session has had handed over; `session` is a file-safe name. Written by
    the post hook (from `agent_end`'s history) and by sync (from OpenClaw's session
    store), so neither captures a turn the other did."""

    def __init__(self, spool_folder: str, session: str) -> None:
        self.folder = os.path.join(spool_folder, STATE_FOLDER)
        self.path = os.path.join(self.folder, f"{session}.json")

    def new_turns(self, messages: list[Message]) -> list[str]:
        """The text of each turn of `agent_end`'s history after the part handed over,
        oldest first ("User: …" and "Assistant: …" paragraphs, as a Claude Code turn
        reads)."""
        return turn_texts(messages[self._start(messages) :])

    def after_handed_over(self, messages: list[Message]) -> list[Message]:
        """`messages` (new to the caller) less those up to the last one handed over."""
        last = self._load().get("last")
        for at in range(len(messages) - 1, -1, -1):
            if _digest(messages[at]) == last:
                return messages[at + 1 :]
        return messages

    def captured(self, messages: list[Message], *, whole_history: bool = True) -> None:
        """Record the last of `messages` as handed over (after their turns are spooled: a
        crash between the two spools them again, and the spool keeps one entry per
        turn). `whole_history`: `messages` is the session from its start, so their
        count says where the next history's new part begins."""
        if not messages:
            return
        state: dict[str, Any] = {"last": _digest(messages[-1])}
        if whole_history:
            state["count"] = len(messages)
        private_dir(self.folder)
        temporary = self.path + ".tmp"
        with open_private(temporary, "w") as handle:
            json.dump(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)

    def _start(self, messages: list[Message]) -> int:
        """Where the messages not handed over yet begin: after the last one handed over
        (where the count says, else found by its digest from the end); the whole history
        for a session new to us; the last turn of a history rewritten since (compacted
        into a summary), whose new part cannot be told."""
        state = self._load()
        if not state:
            return 0
        last = state.get("last")
        count = state.get("count")
        count = count if isinstance(count, int) else 0  # written by sync: no count
        if 0 < count <= len(messages) and _digest(messages[count - 1]) == last:
            return count
        for at in range(len(messages) - 1, -1, -1):
            if _digest(messages[at]) == last:
                return at + 1
        return _last_prompt(messages)

    def _load(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                state = json.load(handle)
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}


def turn_texts(messages: list[Message]) -> list[str]:
    """The text of each turn in `messages`, oldest first, those with no words left out."""
    return [text for text, _ in turns_with_start(messages)]


def turns_with_start(messages: list[Message]) -> list[tuple[str, Message]]:
    """The text of each turn in `messages` and the message it starts with (which says
    when it was said, where the caller has that), as `turn_texts` takes them."""
    found = []
    for turn in _turns(messages):
        text = _turn_text(turn)
        if text:
            found.append((text, turn[0]))
    return found


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


def message_text(message: Message) -> str:
    """Text of an OpenClaw message: a string, or the `text` of its text blocks."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""
