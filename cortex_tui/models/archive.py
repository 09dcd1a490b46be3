"""The turn archive's records as surfaces see them (`cortex_tui/archive/`): a message as
it was said, and a session's outline (a quote given for a query is recall's: `Quote`).
Neither is a memory."""

from __future__ import annotations

from pydantic import Field

from cortex_tui.models.base import UtcDatetime, _Model


class ArchivedMessage(_Model):
    """One message of a captured turn, after the privacy step: prose only (code, tables
    and pasted logs are not kept)."""

    id: str
    session_id: str | None = None
    turn: int | None = Field(default=None, description="its turn's position in the session")
    speaker: str | None = Field(default=None, description="who said it: user or assistant")
    text: str
    said_at: UtcDatetime
    project: str | None = None
    source: str = Field(description="what captured it: the hook, `capture`, `sync`")

    @property
    def short_id(self) -> str:
        return self.id[:8]


class ArchivedSession(_Model):
    """A session's outline in the archive."""

    session_id: str
    project: str | None = None
    source: str
    first_said: UtcDatetime
    last_said: UtcDatetime
    turns: int = Field(ge=0)
    messages: int = Field(ge=1)
