"""Before a turn: whether the event gets context, what to recall for it, and what the
session keeps for the turn's capture.

A session's start gets the project's standing context (its rules and preferences); a
prompt gets a recall on its first characters; an event carrying our own block, or a
prompt too short to recall on, gets nothing. Standard library only at import time: the
hook process plans when it has no service to ask.
"""

from __future__ import annotations

from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.project import project_at, safe_name
from cortex_tui.agent_turn.sessions import SESSION_START, SessionTurns, standing_key

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from cortex_tui.agent_turn.events import HookEvent
    from cortex_tui.config import Settings
    from cortex_tui.given.record import Asker
    from cortex_tui.log_protocol import Log

    Redact = Callable[[str], str]
    """The privacy step on one text (`Redactor.clean`)."""

CONTEXT_CAP = 10_000
"""Characters of context a hook prints at most: Claude Code's cap on a hook's output."""
CONTEXT_BLOCK_TAG = "<cortex_memories>"
PLAN_FIELDS = (
    "query",
    "project",
    "legacy_project",
    "session",
    "max_chars",
    "standing",
    "agent",
    "trigger",
)
"""A plan as it travels to a team server (`fields`), in this order."""


class PrePlan:
    """What to give before a turn: a recall for `query` (none when it is empty), the
    project's standing rules and preferences when a session starts (`standing`), and the
    size cap of the two together. `legacy_project`: the folder name earlier versions filed
    the project's memories under, moved to its key before the recall. The one form of a
    plan: a member's hook sends its `fields` to a team server, which makes it again from
    them."""

    __slots__ = PLAN_FIELDS

    def __init__(
        self,
        query: str,
        project: str | None,
        session: str,
        max_chars: int,
        standing: bool = False,
        *,
        legacy_project: str | None = None,
        agent: str = "plain",
        trigger: str = "prompt",
    ) -> None:
        self.query = query
        self.project = project
        self.legacy_project = legacy_project
        self.session = session
        self.max_chars = max_chars
        self.standing = standing
        self.agent = agent
        """Who asks, for the given record: claude, openclaw or plain."""
        self.trigger = trigger
        """What asks: a prompt, or a session's start, resume or compaction."""

    def fields(self) -> dict[str, Any]:
        """The plan as a team server's route takes it."""
        return {name: getattr(self, name) for name in PLAN_FIELDS}

    @property
    def starts_session(self) -> bool:
        return self.trigger != "prompt"

    def asker(self) -> Asker:
        """Who asked and for what, as the given record names it."""
        from cortex_tui.given.record import Asker

        return Asker(
            agent=self.agent,
            trigger=self.trigger,
            session=self.session or None,
            project=self.project,
            query=self.query,
            max_chars=self.max_chars,
        )

    def cache_key(self) -> tuple[str, str, str]:
        """Session + project + normalised query: a repeated prompt (a retry, a resumed
        session) reuses the context; any other prompt is recalled afresh."""
        normalised = " ".join(self.query.split()).casefold().rstrip("?!. ")
        return (self.session, self.project or "", normalised)


def plan_pre(event: HookEvent, min_prompt_chars: int, query_chars: int, log: Log) -> PrePlan | None:
    """None when this event gets no context: one its agent takes no context from, a
    prompt too short, or one already carrying our block. A session's start gets the
    project's standing context, and a recall for the prompt its agent says the
    conversation lost (after a compaction or a resume). A long prompt is recalled on its
    first `query_chars` (`query_chars_of`); `note_pre` adds the standing context to a
    session's first prompt when its start got none."""
    agent = event.agent
    if not agent.gives_context(event):
        return None
    start = agent.session_start(event)
    if start is None:
        prompt = event.prompt.strip()
        if len(prompt) < min_prompt_chars or CONTEXT_BLOCK_TAG in prompt:
            return None
    else:
        prompt = agent.prompt_at_start(event, log)
        if len(prompt) < min_prompt_chars or CONTEXT_BLOCK_TAG in prompt:
            prompt = ""
    project = project_at(event.cwd)
    return PrePlan(
        query=prompt[:query_chars].strip(),
        project=project.key if project else None,
        legacy_project=project.legacy if project else None,
        session=safe_name(event.session_id),
        max_chars=CONTEXT_CAP - 200,
        standing=start is not None,
        agent=agent.name,
        trigger=start or "prompt",
    )


def query_chars_of(settings: Settings) -> int:
    """The characters of a prompt a pre hook recalls on."""
    return min(settings.hooks.max_query_chars, settings.limits.query_chars)


def note_pre(
    event: HookEvent, home: Path, log: Log, plan: PrePlan | None, redact: Redact | None = None
) -> None:
    """Before an agent's turn: keep the prompt its adapter says to keep until its turn is
    captured, and when `plan` gives context, add the project's standing context to it if
    the session is yet to be given it — a session's start gives it, unless that found no
    service running; an agent with no such event gets it with a session's first prompt.
    `redact`: the privacy step, for the prompt kept (the service has it; the hook
    process not)."""
    agent = event.agent
    if not agent.keeps_sessions or not event.session_id or not agent.gives_context(event):
        return
    prompt = agent.kept_prompt(event)
    key = None
    if plan is not None:
        key = SESSION_START if plan.starts_session else standing_key(event.prompt)
    if prompt is None and key is None:
        return
    try:
        due = SessionTurns(home, event.session_id).before_turn(prompt, key, redact)
    except OSError as exc:
        log.info("prompt not kept for capture: %s", exc)
        return
    if plan is not None and due:
        plan.standing = True


def prepare(
    raw: str, home: Path, limits: tuple[int, int], log: Log, redact: Redact | None = None
) -> tuple[HookEvent, PrePlan | None]:
    """A pre hook's event read and planned, and its session noted (`note_pre`): what
    every surface does first with a pre hook's event. `limits`: the shortest prompt
    recalled on and the characters of it read (`hooks.min_prompt_chars`,
    `query_chars_of`)."""
    event = parse_event(raw)
    plan = plan_pre(event, *limits, log)
    note_pre(event, home, log, plan, redact)
    return event, plan


def keep_prompt(event: HookEvent, home: Path, log: Log) -> None:
    """Keep the prompt of a turn that gets no context (the hook process, when the
    service has not taken the event)."""
    note_pre(event, home, log, None)
