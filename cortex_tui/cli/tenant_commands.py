"""`cortex-tui tenant add|team|list|revoke|rotate`: the tenants a team server
(`serve --tcp --tenants`) serves, each with its own API key and its own memories, and
the teams whose shared memories they use.

They edit the home's registry directly; a running server notices the change at its
next request (a revoked key is refused from then on).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from cortex_tui.cli.args import OneLineParser, Subparsers, actions_of
from cortex_tui.cli.context import CommandContext
from cortex_tui.tenants.registry import TenantRecord, TenantRegistry


def register(sub: Subparsers, common: OneLineParser) -> None:
    p = sub.add_parser(
        "tenant",
        help="the tenants of a team server: each an API key and memories of its own",
        description="Tenants of `cortex-tui serve --tcp HOST:PORT --tenants`: each request "
        "is answered from its API key's tenant's own store.",
    )
    actions = actions_of(p, "tenant_action")
    p = actions.add_parser(
        "add", parents=[common], help="add a tenant and print its API key (shown once)"
    )
    p.add_argument("name", help="1-32 lower-case letters, digits or '-' (e.g. alice)")
    p.add_argument("--team", help="the team whose shared memories (scope team) it uses")
    p = actions.add_parser(
        "team",
        parents=[common],
        help="put a tenant in a team (its shared memories: scope team), or out of any",
    )
    p.add_argument("name")
    p.add_argument("team", nargs="?", help="the team (left out: the tenant leaves its team)")
    actions.add_parser("list", parents=[common], help="the tenants and the state of their keys")
    p = actions.add_parser(
        "revoke",
        parents=[common],
        help="refuse the tenant's key from now on (its memories stay; `rotate` restores it)",
    )
    p.add_argument("name")
    p = actions.add_parser(
        "rotate", parents=[common], help="give the tenant a new key; the old one stops working"
    )
    p.add_argument("name")


def cmd_tenant(ctx: CommandContext) -> int:
    registry = TenantRegistry(ctx.settings.home.expanduser().absolute())
    action = ctx.args.tenant_action
    if action == "list":
        records = registry.tenants()
        ctx.emit(
            [_row(record) for record in records],
            "\n".join(_line(record) for record in records) or "no tenants yet: `tenant add NAME`",
        )
        return 0
    if action == "team":
        record = registry.set_team(ctx.args.name, ctx.args.team)
        said = f"in team {record.team}" if record.team else "in no team"
        ctx.emit(_row(record), f"tenant {record.name} is now {said}")
        return 0
    if action == "revoke":
        record = registry.revoke(ctx.args.name)
        ctx.emit(_row(record), f"revoked the key of tenant {record.name}; its memories stay")
        return 0
    if action == "add":
        record, key = registry.add(ctx.args.name, ctx.args.team)
        said = f"added tenant {record.name}"
    else:
        record, key = registry.rotate(ctx.args.name)
        said = f"new key for tenant {record.name}; the old one no longer works"
    if ctx.json:
        ctx.emit({**_row(record), "api_key": key}, "")
    else:
        print(f"{said}; its API key, shown this once (keep it secret):", file=sys.stderr)
        print(key)
    return 0


def _row(record: TenantRecord) -> dict[str, object]:
    return {
        "name": record.name,
        "team": record.team,
        "active": record.active,
        "created_at": record.created_at.isoformat(),
        "key_made_at": record.key_made_at.isoformat(),
        "revoked_at": record.revoked_at.isoformat() if record.revoked_at else None,
    }


def _line(record: TenantRecord) -> str:
    state = (
        f"revoked {record.revoked_at:%Y-%m-%d %H:%M}"
        if record.revoked_at
        else f"key made {record.key_made_at:%Y-%m-%d %H:%M}"
    )
    team = f", team {record.team}" if record.team else ""
    return f"{record.name}: {state} (UTC){team}"


HANDLERS: dict[str, Callable[[CommandContext], int]] = {"tenant": cmd_tenant}
