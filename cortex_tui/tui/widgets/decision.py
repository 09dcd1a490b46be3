"""A write-path decision as panes show it: why a version, a conflict or a repeat came to be.

One shape everywhere (History, Conflicts, Memories), so a person learns to read it once:
`why` in the accent colour, the action, the reason, and who decided when it was not the
rules (a pair model or an LLM that settled a close call).
"""

from __future__ import annotations

from textual.content import Content

from cortex_tui.models import RULES_JUDGE, Decision


def decision_line(decision: Decision) -> Content:
    parts: list[Content | str | tuple[str, str]] = [
        ("why ", "bold $accent"),
        (f"{decision.action.value}: ", "bold"),
        Content(decision.reason),
    ]
    if decision.judge != RULES_JUDGE:
        parts.append((f"  [{decision.judge}]", "$text-muted"))
    if decision.statement:
        parts += ["\n", ("absorbed ", "$text-muted"), Content(decision.statement)]
    return Content.assemble(*parts)
