"""The privacy step applied to whole records: every text field a memory, an entity or a
relation carries, not only a memory's content. A secret folded into a decision's
absorbed statement, a tag or an entity's alias would leak as surely as one in the
content (an import, a store written by an older version)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from cortex_tui.models import (
    PRIVACY_JUDGE,
    Decision,
    Entity,
    Memory,
    Relation,
    WriteAction,
    with_decision,
)
from cortex_tui.privacy.redactor import Redacted, Redactor


def redaction_decision(redacted: Redacted, at: datetime) -> Decision:
    """What a memory's decision record says about the redaction: kinds, never values."""
    return Decision(
        action=WriteAction.REDACTED, reason=redacted.describe(), judge=PRIVACY_JUDGE, at=at
    )


def clean_tags(redactor: Redactor, tags: list[str]) -> list[str]:
    """Tags without secrets: a tag that held one is dropped (a placeholder says nothing a
    filter could use)."""
    return [tag for tag in tags if not redactor.redact(tag).changed]


def redact_memory(redactor: Redactor, memory: Memory, at: datetime | None = None) -> Memory:
    """`memory` with no secret in any of its texts; itself when it had none. With `at`,
    a change is recorded as a decision (the write path's record); without, it is not
    (the read guard, which shows a memory and writes nothing)."""
    content = redactor.redact(memory.content)
    tags = clean_tags(redactor, memory.tags)
    speaker = redactor.clean(memory.speaker) if memory.speaker else memory.speaker
    decisions = [_redact_decision(redactor, d) for d in memory.decisions]
    if (
        not content.changed
        and tags == memory.tags
        and speaker == memory.speaker
        and all(new is old for new, old in zip(decisions, memory.decisions, strict=True))
    ):
        return memory
    if at is not None and content.changed:
        decisions = with_decision(decisions, redaction_decision(content, at))
    return memory.model_copy(
        update={
            "content": content.text or "[secret removed]",
            "tags": tags,
            "speaker": speaker or None,
            "decisions": decisions,
        }
    )


def _redact_decision(redactor: Redactor, decision: Decision) -> Decision:
    statement = redactor.clean(decision.statement) if decision.statement else None
    reason = redactor.clean(decision.reason)
    if statement == decision.statement and reason == decision.reason:
        return decision
    return decision.model_copy(update={"statement": statement, "reason": reason or "redacted"})


def redact_entity(redactor: Redactor, entity: Entity) -> Entity:
    name = redactor.clean(entity.name)
    aliases = [alias for alias in entity.aliases if not redactor.redact(alias).changed]
    if name == entity.name and aliases == entity.aliases:
        return entity
    return entity.model_copy(update={"name": name or "[secret removed]", "aliases": aliases})


def redact_relation(redactor: Redactor, relation: Relation) -> Relation:
    predicate = redactor.clean(relation.predicate)
    if predicate == relation.predicate:
        return relation
    return relation.model_copy(update={"predicate": predicate or "related_to"})


def redact_strings(value: Any, clean: Callable[[str], str]) -> Any:
    """A JSON value (a spool entry, a session's state) with every string redacted, keys
    left as they are: what the spool keeps is read by field, never parsed as text."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [redact_strings(item, clean) for item in value]
    if isinstance(value, dict):
        return {key: redact_strings(item, clean) for key, item in value.items()}
    return value
