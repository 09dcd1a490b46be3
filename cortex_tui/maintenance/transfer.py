"""The JSONL export format: one `{"kind": ..., "data": {...}}` object per line.

Every field of every memory, entity and relation is written, so an export re-imported
into an empty store gives back the same store (vectors are recomputed: they belong to
the embedder, not to the memory). Parsing validates the whole input before anything is
written, so a bad line never leaves a half-imported store.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import ValidationError

from cortex_tui.errors import InvalidInputError
from cortex_tui.models import Entity, Memory, Relation

FORMAT_HEADER = {"kind": "cortex-export", "version": 1}


def dump_line(obj: Memory | Entity | Relation) -> str:
    kind = {Memory: "memory", Entity: "entity", Relation: "relation"}[type(obj)]
    return json.dumps({"kind": kind, "data": obj.model_dump(mode="json")}, ensure_ascii=False)


def header_line() -> str:
    return json.dumps(FORMAT_HEADER)


@dataclass
class ParsedImport:
    memories: list[Memory] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


_MODELS: dict[str, type[Memory] | type[Entity] | type[Relation]] = {
    "memory": Memory,
    "entity": Entity,
    "relation": Relation,
}


def parse_lines(lines: Iterable[str], *, skip_invalid: bool) -> ParsedImport:
    """Validate every line; raise on the first bad one unless `skip_invalid`."""
    parsed = ParsedImport()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = _parse_line(line)
        except InvalidInputError as exc:
            message = f"line {number}: {exc}"
            if not skip_invalid:
                raise InvalidInputError(
                    f"{message}; nothing was imported (fix the line or use --skip-invalid)"
                ) from None
            parsed.skipped.append(message)
            continue
        if isinstance(obj, Memory):
            parsed.memories.append(obj)
        elif isinstance(obj, Entity):
            parsed.entities.append(obj)
        elif isinstance(obj, Relation):
            parsed.relations.append(obj)
    return parsed


def _parse_line(line: str) -> Memory | Entity | Relation | None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise InvalidInputError("expected a JSON object")
    kind = record.get("kind")
    if kind == FORMAT_HEADER["kind"]:
        return None
    model = _MODELS.get(str(kind))
    if model is None:
        raise InvalidInputError(f"unknown kind {kind!r} (expected memory, entity or relation)")
    try:
        return model.model_validate(record.get("data"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "data"
        raise InvalidInputError(f"{kind} field {where}: {first['msg']}") from None
