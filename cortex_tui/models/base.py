"""What every model shares: UTC times, ids, the enumerations, the strict base model."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
)


def _to_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]


def new_id() -> str:
    return str(uuid.uuid4())


class MemoryType(StrEnum):
    RULE = "rule"
    PROCEDURE = "procedure"
    FACT = "fact"
    EPISODE = "episode"
    PREFERENCE = "preference"


class Scope(StrEnum):
    PERMANENT = "permanent"
    PROJECT = "project"
    SESSION = "session"
    TTL = "ttl"
    TEAM = "team"
    """Shared with the tenant's team on a team server (`serve --tenants`)."""


class ConflictStatus(StrEnum):
    NONE = "none"
    ACTIVE = "active"
    RESOLVED = "resolved"
    DISMISSED = "dismissed"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    DELETED = "deleted"


class EntityType(StrEnum):
    PERSON = "person"
    PROJECT = "project"
    SYSTEM = "system"
    CONCEPT = "concept"
    TOOL = "tool"
    PLACE = "place"
    OTHER = "other"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def utcnow() -> datetime:
    return datetime.now(UTC)
