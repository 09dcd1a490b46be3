"""What the agent sent on stdin, parsed defensively into one shape.

Each agent's adapter (`agents/`) recognises its own events by their fields and reads
them; an event no adapter recognises, or that is not a JSON object, is plain text. Every string
comes out valid Unicode (a lone surrogate escape becomes U+FFFD), so nothing later
fails on encoding it.
"""

from __future__ import annotations

from cortex_tui.untrusted.text import clean_json_loads, clean_text

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from typing import Any

    from cortex_tui.agent_turn.agents.adapter import AgentAdapter

PROMPT_CHARS = 65_536
"""Characters of a prompt a pre hook forwards: as many as any query may have
(`limits.query_chars` and `hooks.max_query_chars` stop there)."""


class HookEvent:
    """One event, whoever sent it (a plain class: `dataclasses` costs a hook ~15 ms).
    `agent` is the adapter that recognised it: everything that depends on who sent
    the event asks it."""

    def __init__(
        self,
        agent: AgentAdapter,
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
        self.agent = agent
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

    def output(self, context: str, text_format: bool) -> str:
        """The hook's stdout for `context`, in the form the agent reads, and no other
        shape it would silently ignore; nothing for no context."""
        return self.agent.render(self, context, text_format) if context else ""


def parse_event(raw: str) -> HookEvent:
    """The event as the first adapter that recognises it reads it; what no agent's is
    (not a JSON object, or no agent's fields) is plain text."""
    from cortex_tui.agent_turn.agents import ADAPTERS, PLAIN

    text = clean_text(raw.strip())
    if not text.startswith("{"):
        return PLAIN.text_event(text)
    try:
        data = clean_json_loads(text)
    except ValueError:
        return PLAIN.text_event(text)
    except RecursionError:
        return PLAIN.text_event("")  # nested past the parser's depth: not an event
    if not isinstance(data, dict):
        return PLAIN.text_event(text)
    for adapter in ADAPTERS:
        if adapter.recognises(data):
            return adapter.event(data)
    return PLAIN.event(data)


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

    from cortex_tui.agent_turn.agents import ADAPTERS

    read = {field for adapter in ADAPTERS for field in adapter.pre_fields}
    kept = {key: data[key] for key in sorted(read) if isinstance(data.get(key), str)}
    kept["prompt"] = kept.get("prompt", "")[:PROMPT_CHARS]
    return json.dumps(kept, ensure_ascii=False)


def string_field(value: Any) -> str:
    """A field of the event as a string: "" when it is missing or anything else."""
    return value if isinstance(value, str) else ""
