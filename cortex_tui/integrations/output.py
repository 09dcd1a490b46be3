"""The hook's stdout in the form its caller documents — and no other JSON shape, which
Claude Code would silently ignore."""

from __future__ import annotations

import json

from cortex_tui.integrations.events import HookEvent

CLAUDE_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")


def render(event: HookEvent, context: str, text_format: bool) -> str:
    if not context:
        return ""
    if event.caller == "claude":
        if text_format or event.event not in CLAUDE_CONTEXT_EVENTS:
            return context
        payload = {
            "hookSpecificOutput": {"hookEventName": event.event, "additionalContext": context}
        }
        return json.dumps(payload, ensure_ascii=False)
    if event.caller == "openclaw":
        return json.dumps({"prependContext": context}, ensure_ascii=False)
    return context
