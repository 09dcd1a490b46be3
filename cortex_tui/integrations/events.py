"""What the agent sent on stdin, parsed defensively into one shape.

Claude Code sends JSON with `hook_event_name`; OpenClaw events carry `prompt` /
`messages` without it; anything that is not a JSON object is plain text. Every string
comes out valid Unicode (a lone surrogate escape becomes U+FFFD), so nothing later
fails on encoding it.
"""

from __future__ import annotations

from cortex_tui.untrusted.text import clean_json_loads, clean_text

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from typing import Any, Literal

    Caller = Literal["claude", "openclaw", "plain"]
PROMPT_CHARS = 65_536
"""Characters of a prompt a pre hook forwards: as many as any query may have
(`limits.query_chars` and `hooks.max_query_chars` stop there)."""
_FORWARDED = (
    "hook_event_name",
    "hookEventName",
    "prompt",
    "cwd",
    "session_id",
    "sessionId",
    "transcript_path",
    "source",
    "type",
    "event",
)


class HookEvent:
    """One event, whoever sent it (a plain class: `dataclasses` costs a hook ~15 ms)."""

    def __init__(
        self,
        caller: Caller,
        event: str = "",
        prompt: str = "",
        cwd: str | None = None,
        session_id: str | None = None,
        transcript_path: str | None = None,
        source: str | None = None,
        stop_hook_active: bool = False,
        agent_id: str | None = None,
        last_assistant_message: str | None = None,
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        self.caller = caller
        self.event = event
        self.prompt = prompt
        self.cwd = cwd
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.source = source
        self.stop_hook_active = stop_hook_active
        self.agent_id = agent_id
        self.last_assistant_message = last_assistant_message
        self.messages = messages or []


def parse_event(raw: str) -> HookEvent:
    text = clean_text(raw.strip())
    if not text.startswith("{"):
        return HookEvent(caller="plain", prompt=text)
    try:
        data = clean_json_loads(text)
    except ValueError:
        return HookEvent(caller="plain", prompt=text)
    except RecursionError:
        return HookEvent(caller="plain")  # nested past the parser's depth: not an event
    if not isinstance(data, dict):
        return HookEvent(caller="plain", prompt=text)
    name = _str(data.get("hook_event_name") or data.get("hookEventName"))
    if name:
        return HookEvent(
            caller="claude",
            event=name,
            prompt=_str(data.get("prompt")),
            cwd=_str(data.get("cwd")) or None,
            session_id=_str(data.get("session_id")) or None,
            transcript_path=_str(data.get("transcript_path")) or None,
            source=_str(data.get("source")) or None,
            stop_hook_active=bool(data.get("stop_hook_active")),
            agent_id=_str(data.get("agent_id")) or None,
            last_assistant_message=_str(data.get("last_assistant_message")) or None,
        )
    messages = data.get("messages")
    return HookEvent(
        caller="openclaw",
        event=_str(data.get("type") or data.get("event")),
        prompt=_str(data.get("prompt")),
        cwd=_str(data.get("cwd")) or None,
        session_id=_str(data.get("sessionId") or data.get("session_id")) or None,
        messages=[m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else [],
    )


def for_pre(raw: str) -> str:
    """The event as a pre hook forwards it: as sent, unless it is larger than any event
    a recall needs; then only the fields the pre hook reads, with the prompt's first
    `PROMPT_CHARS` characters (a pasted log of megabytes still gets context)."""
    if len(raw) <= PROMPT_CHARS * 2:
        return raw
    text = raw.strip()
    try:
        data = clean_json_loads(text) if text.startswith("{") else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return text[:PROMPT_CHARS]
    import json  # a pre hook for an ordinary prompt forwards it as it came, without json

    kept = {key: data[key] for key in _FORWARDED if isinstance(data.get(key), str)}
    kept["prompt"] = kept.get("prompt", "")[:PROMPT_CHARS]
    return json.dumps(kept, ensure_ascii=False)


def message_text(message: dict[str, Any]) -> str:
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


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
