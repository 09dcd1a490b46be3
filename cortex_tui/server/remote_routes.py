"""The routes an agent on another machine uses (`CORTEX_URL`): its pre hook's context and
the delivery of the turns its post hooks spooled.

An agent's event names files on its own machine (the transcript, the working folder),
which the server cannot read, so the member's hook does that part itself: it works out
the project and what to recall (`PrePlan`) and sends the plan; after a turn it reads the
transcript into its local spool and sends the spooled entries. The server checks each
one, keeps no secret (the privacy step runs before the spool is written) and captures
them as it captures its own hooks' turns.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import BackgroundTasks, FastAPI
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.concurrency import run_in_threadpool

from cortex_tui.agent_turn.plan import CONTEXT_CAP, PrePlan
from cortex_tui.clients.team_server import (
    ENTRIES_PER_REQUEST,
    HOOK_CONTEXT_ROUTE,
    SPOOL_ENTRIES_ROUTE,
)
from cortex_tui.engine.limits import check_content, check_query
from cortex_tui.errors import TooLargeError
from cortex_tui.models import MemoryDraft
from cortex_tui.privacy.records import redact_strings
from cortex_tui.server.service import Service, log
from cortex_tui.spool.durable import Spool
from cortex_tui.spool.entries import DraftEntry, SpoolEntry, TurnEntry

Key = Annotated[str, StringConstraints(pattern=r"^(draft-)?[0-9a-f]{16,64}$")]
Name = Annotated[str, StringConstraints(max_length=500)]


class HookPlan(BaseModel):
    """What a member's pre hook asks for: a `PrePlan`'s fields, checked."""

    model_config = ConfigDict(extra="forbid")
    query: str = ""
    project: Name | None = None
    legacy_project: Name | None = None
    session: Name = ""
    max_chars: int = Field(default=CONTEXT_CAP - 200, ge=100, le=CONTEXT_CAP)
    standing: bool = False
    agent: Name = Field(default="plain", description="who asks, for the given record")
    trigger: Name = Field(default="prompt", description="what asks: a prompt, a session's start")


class HookContext(BaseModel):
    context: str


class SpooledTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: Key
    text: str
    project: Name | None = None
    session_id: Name | None = None
    at: float
    source: Name | None = None


class SpooledDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: Key
    draft: MemoryDraft
    at: float


class SpoolDelivery(BaseModel):
    entries: list[SpooledTurn | SpooledDraft] = Field(max_length=ENTRIES_PER_REQUEST)


class SpoolReceipt(BaseModel):
    accepted: list[str]
    """Keys now in the server's spool (or captured already): the sender may drop them."""
    refused: dict[str, str] = Field(default_factory=dict)
    """Keys the server will never take, with why (a draft over its size limit): the
    sender drops them too, or they would be sent forever."""


def add_remote_routes(app: FastAPI, service: Service) -> None:

    @app.post(HOOK_CONTEXT_ROUTE, response_model=HookContext)
    async def hook_context(plan: HookPlan, after: BackgroundTasks) -> HookContext:
        check_query(plan.query, service.settings.limits)
        pre = PrePlan(**plan.model_dump())
        answer = await run_in_threadpool(service.hook_context, pre)
        if answer.read:
            after.add_task(service.touch, answer.read)
        after.add_task(service.record_given, pre, answer.given)
        return HookContext(context=answer.given.context)

    @app.post(SPOOL_ENTRIES_ROUTE, response_model=SpoolReceipt)
    def spool_entries(delivery: SpoolDelivery) -> SpoolReceipt:
        """A turn of any length is taken (its capture keeps its start and end, as for
        the server's own hooks); a draft too long to store is refused; nothing is taken
        while the tenant is at its memory quota (the sender keeps it for later)."""
        service.check_room()
        redact = service.engine.privacy.clean
        entries: list[SpoolEntry] = []
        refused: dict[str, str] = {}
        for entry in delivery.entries:
            if isinstance(entry, SpooledTurn):
                turn = TurnEntry(kind="turn", key=entry.key, text=redact(entry.text), at=entry.at)
                for name in ("project", "session_id", "source"):
                    if (value := getattr(entry, name)) is not None:
                        turn[name] = value
                entries.append(turn)
                continue
            try:
                check_content(entry.draft.content, service.settings.limits)
            except TooLargeError as exc:
                refused[entry.key] = str(exc)
                continue
            draft = redact_strings(entry.draft.model_dump(mode="json", exclude_none=True), redact)
            entries.append(DraftEntry(kind="draft", key=entry.key, draft=draft, at=entry.at))
        if Spool(service.home / "spool", log).append_many(entries):
            service.request_drain()
        return SpoolReceipt(accepted=[entry["key"] for entry in entries], refused=refused)
