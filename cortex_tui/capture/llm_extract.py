"""Memory extraction by an LLM, with a parser that forgives how models format JSON.

Models wrap JSON in code fences, add a sentence before it, return one object instead of
a list or a `{"memories": [...]}` wrapper, spell types in capitals, or omit fields. Each
of these is accepted; an item that still makes no sense is skipped on its own, so one bad
item never costs the others. Dropping low-confidence items is the caller's job.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from cortex_tui.capture.prompt import EXTRACTION_SYSTEM, extraction_user_message
from cortex_tui.llm.base import LLMClient
from cortex_tui.models import (
    Candidate,
    CandidateEntity,
    CandidateRelation,
    EntityType,
    MemoryType,
    Scope,
)

MAX_CONVERSATION_CHARS = 48_000
"""Longer conversations keep their end: the latest turns are the ones being captured."""

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_WRAPPER_KEYS = ("memories", "items", "candidates", "results", "data")
_MAX_TAGS = 8
_E = TypeVar("_E", MemoryType, Scope, EntityType)


def extract_with_llm(
    client: LLMClient,
    text: str,
    *,
    project: str | None,
    max_tokens: int = 2048,
    timeout: float = 30.0,
) -> list[Candidate]:
    """Candidates the model finds in `text`; raises `LLMError` when the call fails."""
    if not text.strip():
        return []
    if len(text) > MAX_CONVERSATION_CHARS:
        text = text[-MAX_CONVERSATION_CHARS:]
    answer = client.complete(
        EXTRACTION_SYSTEM, extraction_user_message(text, project), max_tokens, timeout
    )
    return parse_candidates(answer)


def parse_candidates(answer: str) -> list[Candidate]:
    """Every valid candidate in a model's answer; [] when it holds no usable JSON."""
    items = _find_items(answer)
    candidates = [_candidate(item) for item in items if isinstance(item, dict)]
    return [candidate for candidate in candidates if candidate is not None]


def _find_items(answer: str) -> list[Any]:
    """The list of memory objects in `answer`: fenced JSON first, then any JSON value."""
    for source in [*_FENCE.findall(answer), answer]:
        for value in _json_values(source):
            items = _as_items(value)
            if items is not None:
                return items
    return []


def _json_values(text: str) -> list[Any]:
    """Every JSON array or object that starts somewhere in `text` and decodes cleanly."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    while True:
        starts = [i for i in (text.find("[", position), text.find("{", position)) if i >= 0]
        if not starts:
            return values
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            position = start + 1
            continue
        values.append(value)
        position = end


def _as_items(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if not isinstance(value, dict):
        return None
    for key in _WRAPPER_KEYS:
        if isinstance(value.get(key), list):
            return list(value[key])
    return [value] if "content" in value else None


def _candidate(item: dict[str, Any]) -> Candidate | None:
    content = item.get("content")
    if not isinstance(content, str) or not content.strip():
        return None
    fields: dict[str, Any] = {
        "content": " ".join(content.split()),
        "type": _enum(MemoryType, item.get("type")),
        "scope": _enum(Scope, item.get("scope")),
        "tags": _tags(item.get("tags")),
        "entities": _entities(item.get("entities")),
        "relations": _relations(item.get("relations")),
        "valid_at": _when(item.get("valid_at")),
        "corrects": item.get("corrects") is True,
    }
    confidence = _confidence(item.get("confidence"))
    if confidence is not None:
        fields["confidence"] = confidence
    try:
        return Candidate(**fields)
    except ValidationError:
        return None


def _enum(kind: type[_E], raw: Any) -> _E | None:
    if not isinstance(raw, str):
        return None
    try:
        return kind(raw.strip().lower())
    except ValueError:
        return None


def _confidence(raw: Any) -> float | None:
    """A 0–1 confidence; percentages (1 < x ≤ 100) are scaled, anything else ignored."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str):
        try:
            raw = float(raw.strip().rstrip("%"))
        except ValueError:
            return None
    if not isinstance(raw, int | float):
        return None
    value = float(raw)
    if 1.0 < value <= 100.0:
        value /= 100.0
    return value if 0.0 <= value <= 1.0 else None


def _tags(raw: Any) -> list[str]:
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list):
        return []
    tags: list[str] = []
    for tag in raw:
        if isinstance(tag, str):
            clean = "-".join(tag.strip().lower().lstrip("#").split())
            if clean and clean not in tags:
                tags.append(clean)
    return tags[:_MAX_TAGS]


def _entities(raw: Any) -> list[CandidateEntity]:
    if not isinstance(raw, list):
        return []
    entities: list[CandidateEntity] = []
    for item in raw:
        name, kind = (item, None) if isinstance(item, str) else (None, None)
        if isinstance(item, dict):
            name, kind = item.get("name"), item.get("type")
        if isinstance(name, str) and name.strip():
            entity_type = _enum(EntityType, kind) or EntityType.OTHER
            entities.append(CandidateEntity(name=name.strip(), type=entity_type))
    return entities


def _relations(raw: Any) -> list[CandidateRelation]:
    if not isinstance(raw, list):
        return []
    relations: list[CandidateRelation] = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        parts = [item.get(key) for key in ("subject", "predicate", "object")]
        if not all(isinstance(part, str) and part.strip() for part in parts):
            continue
        subject, predicate, obj = (str(part).strip() for part in parts)
        relations.append(
            CandidateRelation(
                subject=subject,
                predicate="_".join(predicate.lower().replace("-", " ").split()),
                object=obj,
                valid_at=_when(item.get("valid_at")),
            )
        )
    return relations


def _when(raw: Any) -> datetime | None:
    """An ISO date or datetime; dates mean midnight UTC and naive times are taken as UTC."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    text = raw.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        try:
            day = date.fromisoformat(text[:10])
        except ValueError:
            return None
        moment = datetime(day.year, day.month, day.day)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
