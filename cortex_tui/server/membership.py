"""A team member's requests on a team server: which store answers each operation — the
member's own, or its team's shared one (scope `team`).

- Recall and the conflict list read both (a team rule is recalled beside one's own).
- A memory, a version chain or a conflict group named by id is looked up in the
  member's own store first, then in the team's: ids are UUIDs, so one names one place.
- `remember` with scope `team` writes to the team's store, `list` of scope `team` reads
  it; everything else (capture, imports, backups, undo, views, the graph) is the
  member's own.
- What the member writes on the team's store records it as the version's `author`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cortex_tui.curation.groups import ConflictGroup
from cortex_tui.errors import NotFoundError
from cortex_tui.models import Scope
from cortex_tui.recall.merge import merge_recalls

if TYPE_CHECKING:
    from cortex_tui.engine.declaration import Operation
    from cortex_tui.server.service import Service

NAMED_BY_ID = frozenset(
    {
        "get",
        "history",
        "explain",
        "resolve_id",
        "update",
        "forget",
        "restore",
        "resolve",
        "merge",
        "dismiss",
    }
)


def perform_as_member(
    own: Service, team: Service, member: str, operation: Operation, arguments: Any
) -> Any:
    name = operation.name
    if name == "remember":
        shared = arguments.scope is Scope.TEAM
        return _on(team if shared else own, member, operation, arguments)
    if name == "list":
        shared = Scope.TEAM in (arguments.filter.scopes or [])
        return _on(team if shared else own, member, operation, arguments)
    if name in NAMED_BY_ID:
        try:
            return own.perform_here(operation, arguments)
        except NotFoundError:
            return _on(team, member, operation, arguments)
    if name == "recall":
        answers = [own.perform_here(operation, arguments), team.perform_here(operation, arguments)]
        return merge_recalls(arguments, answers, own.settings.recall, own.engine.now())
    if name == "conflicts":
        groups: list[ConflictGroup] = own.perform_here(operation, arguments)
        return groups + team.perform_here(operation, arguments)
    return own.perform_here(operation, arguments)


def _on(service: Service, member: str, operation: Operation, arguments: Any) -> Any:
    """On the member's own store, or on its team's as that member."""
    writer = member if service.engine.shared else None
    return service.perform_here(operation, arguments, writer=writer)
