"""Which condition of a `MemoryFilter` keeps a given memory out, in words a user acts on.

The store applies filters inside its queries; this mirror of the same rules exists only
to answer "why not?" for one memory, so it must stay in step with `MemoryFilter`'s
documented semantics (the contract tests of both are run on the same cases).
"""

from __future__ import annotations

from cortex_tui.models import Memory
from cortex_tui.store.base import MemoryFilter


def exclusion_reason(memory: Memory, flt: MemoryFilter) -> str | None:
    """The first filter condition `memory` fails, or None when it passes them all."""
    checks = (
        _status,
        _version,
        _project,
        _conflict,
        _types,
        _scopes,
        _tags,
        _session,
        _source,
        _ids,
        _text,
    )
    for check in checks:
        reason = check(memory, flt)
        if reason:
            return reason
    return None


def _status(m: Memory, f: MemoryFilter) -> str | None:
    if f.statuses is not None and m.status not in f.statuses:
        return f"status is {m.status.value} (recall only sees {_join(f.statuses)} memories)"
    return None


def _version(m: Memory, f: MemoryFilter) -> str | None:
    if f.as_of is not None:
        t = f.as_of
        if m.created_at > t or m.valid_from > t:
            return f"did not exist yet at {t.isoformat()}"
        if m.valid_to is not None and m.valid_to <= t:
            return f"was no longer valid at {t.isoformat()} (valid until {m.valid_to.isoformat()})"
        return None
    if f.current_only and m.valid_to is not None:
        successor = m.superseded_by_id[:8] if m.superseded_by_id else "a newer version"
        return f"superseded by {successor} (recall with --include-history to see old versions)"
    return None


def _project(m: Memory, f: MemoryFilter) -> str | None:
    if f.global_only:
        return None if m.project is None else f"belongs to project {m.project}, not global"
    if f.project is None:
        return None
    if m.project == f.project or (m.project is None and not f.project_only):
        return None
    owner = f"project {m.project}" if m.project else "no project (global)"
    return f"belongs to {owner}, the query is for project {f.project}"


def _conflict(m: Memory, f: MemoryFilter) -> str | None:
    if m.conflict_status in f.exclude_conflict_statuses:
        return f"conflict status is {m.conflict_status.value} (retired by a conflict resolution)"
    if f.conflict_statuses is not None and m.conflict_status not in f.conflict_statuses:
        return f"conflict status is {m.conflict_status.value}, not {_join(f.conflict_statuses)}"
    return None


def _types(m: Memory, f: MemoryFilter) -> str | None:
    if f.types is not None and m.type not in f.types:
        return f"type is {m.type.value}, the query asks for {_join(f.types)}"
    return None


def _scopes(m: Memory, f: MemoryFilter) -> str | None:
    if f.scopes is not None and m.scope not in f.scopes:
        return f"scope is {m.scope.value}, the query asks for {_join(f.scopes)}"
    return None


def _tags(m: Memory, f: MemoryFilter) -> str | None:
    if f.tags is not None and not set(m.tags) & set(f.tags):
        have = ", ".join(m.tags) or "none"
        return f"has none of the tags {', '.join(f.tags)} (its tags: {have})"
    return None


def _session(m: Memory, f: MemoryFilter) -> str | None:
    if f.session_id is not None and m.session_id != f.session_id:
        return f"belongs to another session than {f.session_id}"
    return None


def _source(m: Memory, f: MemoryFilter) -> str | None:
    if f.source_prefix and not m.source.startswith(f.source_prefix):
        return f"its source {m.source} does not start with {f.source_prefix}"
    return None


def _ids(m: Memory, f: MemoryFilter) -> str | None:
    if f.ids is not None and m.id not in f.ids:
        return "not among the requested ids"
    return None


def _text(m: Memory, f: MemoryFilter) -> str | None:
    if f.text:
        content = m.content.casefold()
        missing = [w for w in f.text.casefold().split() if w not in content]
        if missing:
            return f"content does not contain {', '.join(missing)}"
    return None


def _join(values: object) -> str:
    return "/".join(str(getattr(v, "value", v)) for v in values)  # type: ignore[attr-defined]
