"""No tenant of a team server ever sees another's data, whatever it asks, and a team's
shared memories reach its members only (a property test against a real
`serve --tcp --tenants`, over HTTP).

Two or three fresh tenants per example (often two of them in a team) run a random
sequence of every operation the API declares, of the service's own routes a tenant may
use (export, status, the remote hooks' context and spool delivery) and of every tool of
the tenants' MCP endpoint (`mcp --http --tenants`): with their own
ids, with ids another tenant's answers gave, with guessed id prefixes, with the other
tenants' words and entity names as queries; members also write and change team
memories. Every answer is read whole: no other tenant's secret word, entity name,
memory or entity id — nor another team's — may appear in it unless the request itself
carried it (an error naming the id it was asked for is not a leak); and a request
naming such a memory or entity by id is always "not found".
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import string
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from cortex_tui.clients.team_server import HOOK_CONTEXT_ROUTE, SPOOL_ENTRIES_ROUTE
from cortex_tui.config import RecallWeights
from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.operations import OPERATIONS
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.errors import CortexError, NotFoundError
from cortex_tui.given.record import GivenRecord
from cortex_tui.mcp.tools import TOOLS as MCP_TOOLS
from cortex_tui.models import MemoryDraft, Scope
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.team_server import TeamServer, mcp_front, team_server
from tests.store.helpers import SERVER_API_KEY, SERVER_URL

pytestmark = pytest.mark.slow

SCALE = float(os.environ.get("ISOLATION_SCALE", "1"))
DISK = "/var/tmp" if Path("/var/tmp").is_dir() else None
"""ISOLATION_SCALE=10: a longer campaign (ten times the examples) for a measurement."""
TOPICS = ["billing", "search", "ingest", "payments", "reports"]
DEPLOY_TOOLS = ["Argo CD", "Flux", "Helm", "Terraform", "Nomad"]
UUID_CHARS = 36
EXTRA_ROUTES = ["export", "status", "hook_context", "spool_entries"]
MCP = "mcp:"
STEPS = (
    sorted(operation.name for operation in OPERATIONS)
    + EXTRA_ROUTES
    + [MCP + spec.name for spec in MCP_TOOLS]
)


@dataclass
class Exchange:
    request: str
    status: int
    answer: str


@dataclass
class Holdings:
    """What one party's data holds: a tenant's own, or a team's shared memories."""

    nonce: str
    marks: set[str] = field(default_factory=set)
    """Its secret words, entity names and ids: found in no one else's answers."""
    memory_ids: list[str] = field(default_factory=list)
    entity_ids: list[str] = field(default_factory=list)
    group_ids: list[str] = field(default_factory=list)
    written: int = 0

    @property
    def entity_names(self) -> list[str]:
        return [f"Zor{self.nonce}{letter}" for letter in "abc"]

    def mark(self, word: str) -> str:
        """`word` as its own (an alias, a name, a profile it gives)."""
        self.marks.add(word)
        return word

    def fresh_text(self) -> str:
        """A statement only this party makes: a secret word and one of its entities."""
        self.written += 1
        secret = f"tk{self.nonce}{self.written}q"
        entity = self.entity_names[self.written % 3]
        self.marks.update({secret, entity})
        topic = TOPICS[self.written % len(TOPICS)]
        tool = DEPLOY_TOOLS[self.written % len(DEPLOY_TOOLS)]
        return (
            f"{entity} leads the {topic} service, which deploys with {tool}; the word is {secret}"
        )

    def learn(self, kind: str, ident: str) -> None:
        known = getattr(self, f"{kind}_ids")
        if ident not in known:
            known.append(ident)
            self.marks.add(ident)


@dataclass
class Member:
    name: str
    key: str
    engine: RemoteEngine
    client: httpx.Client
    exchanges: list[Exchange]
    own: Holdings
    team: Holdings | None = None
    said: list[str] = field(default_factory=list)
    """Its requests checked so far (what `ECHOING` answers may give back)."""

    @property
    def readable(self) -> list[Holdings]:
        return [self.own, *([self.team] if self.team else [])]

    def unreadable(self, others: list[Member]) -> list[tuple[str, Holdings]]:
        """Each other tenant's own data, and any team's it is not in."""
        found: list[tuple[str, Holdings]] = []
        for other in others:
            found.append((other.name, other.own))
            if other.team is not None and other.team is not self.team:
                found.append((f"{other.name}'s team", other.team))
        return found

    def holding(self, memory: str) -> Holdings:
        """Where a memory it names lives: its team's store or its own."""
        return self.team if self.team and memory in self.team.memory_ids else self.own


@dataclass
class Campaign:
    operations: int = 0
    examples: int = 0
    tenants: int = 0
    teams: int = 0
    foreign_ids: int = 0
    """Requests that named another tenant's memory or entity by id (each refused)."""
    mcp_calls: int = 0
    leaks: list[str] = field(default_factory=list)


CAMPAIGN = Campaign()


BACKENDS = {
    # each tenant's (and team's) own embedded store under the server's home, few open at
    # once: stores are closed and opened again between the examples' requests
    "edge": {"CORTEX_TENANTS__OPEN_STORES": "4"},
    # qdrant-client's local mode, the server backend's code with collections per tenant
    "qdrant-local": {"CORTEX_STORE__QDRANT_URL": ":memory:"},
    **(
        {
            "qdrant-server": {
                "CORTEX_STORE__QDRANT_URL": SERVER_URL,
                "CORTEX_STORE__QDRANT_API_KEY": SERVER_API_KEY or "",
                "CORTEX_STORE__COLLECTION_PREFIX": f"iso{os.getpid()}{int(time.time())}",
            }
        }
        if SERVER_URL
        else {}
    ),
}
"""Where the tenants' stores live; a real Qdrant server when CORTEX_QDRANT_URL names one."""


@dataclass
class Site:
    server: TeamServer
    mcp_url: str
    """`mcp --http --tenants` in front of the server: every tenant's MCP endpoint."""


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def site(request: pytest.FixtureRequest) -> Iterator[Site]:
    """On disk, not in the suite's RAM folder: each embedded store a campaign opens keeps
    ~40 MB of index pages, which a RAM folder would hold in memory."""
    with tempfile.TemporaryDirectory(prefix="cortex-isolation-", dir=DISK) as folder:
        root = Path(folder)
        with (
            team_server(root / "home", **BACKENDS[request.param]) as running,
            mcp_front(running, root / "front") as url,
        ):
            yield Site(running, url)
    print(
        f"\nisolation: {CAMPAIGN.operations} operations ({CAMPAIGN.mcp_calls} over MCP), "
        f"{CAMPAIGN.examples} examples, {CAMPAIGN.tenants} tenants, {CAMPAIGN.teams} teams, "
        f"{CAMPAIGN.foreign_ids} naming another tenant's ids, {len(CAMPAIGN.leaks)} leaks"
    )


def nonce(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(8))


def member(server: TeamServer, rng: random.Random, team: Holdings | None) -> Member:
    own = Holdings(nonce(rng))
    name = f"iso-{own.nonce}"
    key = TenantRegistry(server.home).add(name, f"team-{team.nonce}" if team else None)[1]
    exchanges: list[Exchange] = []

    def record(response: httpx.Response) -> None:
        response.read()
        request = response.request
        exchanges.append(
            Exchange(
                f"{request.url} {request.content.decode()}",
                response.status_code,
                response.text,
            )
        )

    client = httpx.Client(
        base_url=server.url,
        headers={"Authorization": f"Bearer {key}"},
        timeout=120,
        event_hooks={"response": [record]},
    )
    engine = RemoteEngine(client, server=server.url)
    return Member(name, key, engine, client, exchanges, own, team)


# --- the arguments each step takes ------------------------------------------------------


def foreign(me: Member, others: list[Member], kind: str) -> list[str]:
    return [
        found for _, holdings in me.unreadable(others) for found in getattr(holdings, f"{kind}_ids")
    ]


def memory_id(me: Member, others: list[Member], rng: random.Random) -> str:
    roll = rng.random()
    mine = [found for holdings in me.readable for found in holdings.memory_ids]
    theirs = foreign(me, others, "memory")
    if roll < 0.45 and mine:
        return rng.choice(mine)
    if roll < 0.9 and theirs:
        return rng.choice(theirs)
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([4, 8, 36])))


def id_prefix(me: Member, others: list[Member], rng: random.Random) -> str:
    return memory_id(me, others, rng)[: rng.choice([4, 6, 8])]


def group_id(me: Member, others: list[Member], rng: random.Random) -> str:
    mine = [found for holdings in me.readable for found in holdings.group_ids]
    pool = mine if rng.random() < 0.5 and mine else foreign(me, others, "group")
    return rng.choice(pool) if pool else "0" * 32


def entity_ref(me: Member, others: list[Member], rng: random.Random) -> str:
    """Its own entity or another's, by id or by name."""
    owner = me.own if rng.random() < 0.5 else rng.choice(me.unreadable(others))[1]
    if owner.entity_ids and rng.random() < 0.6:
        return rng.choice(owner.entity_ids)
    return rng.choice(owner.entity_names)


def query(me: Member, others: list[Member], rng: random.Random) -> str:
    """Words of its own statements or another's (never their secret words)."""
    pool = [*me.readable, *(holdings for _, holdings in me.unreadable(others))]
    names = rng.choice(pool).entity_names
    return f"how does {rng.choice(names)} deploy the {rng.choice(TOPICS)} service"


def draft(me: Member, rng: random.Random) -> MemoryDraft:
    """Its own statement, or, for a team's member, often one for the team."""
    if me.team is not None and rng.random() < 0.4:
        return MemoryDraft(content=me.team.fresh_text(), scope=Scope.TEAM)
    return MemoryDraft(content=me.own.fresh_text())


def update(me: Member, others: list[Member], rng: random.Random) -> dict[str, Any]:
    target = memory_id(me, others, rng)
    return {"memory_id": target, "content": me.holding(target).fresh_text()}


def merge(me: Member, others: list[Member], rng: random.Random) -> dict[str, Any]:
    group = group_id(me, others, rng)
    shared = me.team is not None and group in me.team.group_ids
    holdings = me.team if shared and me.team else me.own
    return {"group_id": group, "content": holdings.fresh_text()}


def listing(me: Member, rng: random.Random) -> dict[str, Any]:
    scopes = [Scope.TEAM] if rng.random() < 0.3 else None
    return {"filter": MemoryFilter(current_only=False, statuses=None, scopes=scopes), "limit": 100}


def own_turn(me: Member) -> GivenRecord:
    """A record of a turn given one of its own statements (as an MCP client keeps one)."""
    text = me.own.fresh_text()
    context = f"<cortex_memories>\n- [fact · 1d · {me.own.nonce}] {text}\n</cortex_memories>"
    return GivenRecord(
        at=datetime.now(UTC),
        agent="mcp",
        trigger="recall",
        prompt=text,
        context=context,
        used_tokens=len(context) // 4,
    )


def judged_turn(me: Member, others: list[Member], rng: random.Random) -> dict[str, Any]:
    """One of its turns and a memory it was given, or another tenant's memory, or a turn
    id that exists nowhere."""
    turns = [turn for turn in me.engine.given.records(limit=10) if turn.given]
    if not turns or rng.random() < 0.2:
        return {
            "injection_id": str(uuid.uuid4()),
            "memory_id": memory_id(me, others, rng),
            "verdict": "useful",
        }
    turn = rng.choice(turns)
    given = rng.choice(turn.given).id if rng.random() < 0.6 else memory_id(me, others, rng)
    return {"injection_id": turn.id, "memory_id": given, "verdict": rng.choice(["useful", "wrong"])}


Arguments = Callable[[Member, list[Member], random.Random], Any]

ARGUMENTS: dict[str, Arguments] = {
    "health": lambda me, others, rng: {"deep": rng.random() < 0.3},
    "stats": lambda me, others, rng: {},
    "activity": lambda me, others, rng: {"days": 30},
    "memory_map": lambda me, others, rng: {
        "query": query(me, others, rng) if rng.random() < 0.5 else None,
        "top_k": 5,
    },
    "word_cloud": lambda me, others, rng: {"limit": 40},
    "timeline": lambda me, others, rng: {"days": 30},
    "day": lambda me, others, rng: {"day": date.today()},
    "vitals": lambda me, others, rng: {},
    "recall": lambda me, others, rng: RecallRequest(
        query=query(me, others, rng), include_archive=rng.random() < 0.5
    ),
    "archived_sessions": lambda me, others, rng: {"limit": 50},
    "archived_session": lambda me, others, rng: {"session_id": f"session-{rng.randint(1, 3)}"},
    "search_archive": lambda me, others, rng: {"query": query(me, others, rng), "limit": 20},
    "said_in": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "explain": lambda me, others, rng: {
        "request": RecallRequest(query=query(me, others, rng)),
        "memory_id": memory_id(me, others, rng),
    },
    "get": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "resolve_id": lambda me, others, rng: {"prefix": id_prefix(me, others, rng)},
    "list": lambda me, others, rng: listing(me, rng),
    "history": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "conflicts": lambda me, others, rng: {},
    "profiles": lambda me, others, rng: {},
    "remember": lambda me, others, rng: draft(me, rng),
    "capture": lambda me, others, rng: {
        "text": f"user: We decided that {me.own.fresh_text()}.\nassistant: Noted.",
        # Every tenant's sessions have the same names: each archive is its own all the same.
        "session_id": f"session-{rng.randint(1, 3)}",
    },
    "update": update,
    "forget": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "purge": lambda me, others, rng: {},
    "restore": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "resolve": lambda me, others, rng: {
        "group_id": group_id(me, others, rng),
        "keep_id": memory_id(me, others, rng),
    },
    "merge": merge,
    "dismiss": lambda me, others, rng: {"group_id": group_id(me, others, rng)},
    "undo": lambda me, others, rng: {"count": 1},
    "lifecycle": lambda me, others, rng: {"dry_run": rng.random() < 0.5},
    "backup": lambda me, others, rng: {},
    "save_profile": lambda me, others, rng: {
        "name": me.own.mark(f"p{me.own.nonce}"),
        "weights": RecallWeights(),
    },
    "import": lambda me, others, rng: {"lines": list(me.engine.export())[:3]},
    "entities": lambda me, others, rng: {"limit": 100},
    "search_entities": lambda me, others, rng: {
        "text": rng.choice(
            rng.choice([me.own, *(h for _, h in me.unreadable(others))]).entity_names
        )
    },
    "entity": lambda me, others, rng: {"ref": entity_ref(me, others, rng)},
    "neighbourhood": lambda me, others, rng: {"ref": entity_ref(me, others, rng)},
    "merge_entity": lambda me, others, rng: {
        "ref": entity_ref(me, others, rng),
        "into_id": entity_ref(me, others, rng),
    },
    "add_alias": lambda me, others, rng: {
        "ref": entity_ref(me, others, rng),
        "alias": me.own.mark(f"Al{me.own.nonce}{rng.choice('xyz')}"),
    },
    "rename_entity": lambda me, others, rng: {
        "ref": entity_ref(me, others, rng),
        "name": me.own.mark(f"Ren{me.own.nonce}{rng.choice('xyz')}"),
    },
    "given": lambda me, others, rng: {"limit": 20},
    "unhelpful": lambda me, others, rng: {"min_given": 1},
    "record_given": lambda me, others, rng: own_turn(me),
    "judge_turn": judged_turn,
    "withdraw_judgement": lambda me, others, rng: {"judgement_id": str(uuid.uuid4())},
}


def conflicts_tool(me: Member, others: list[Member], rng: random.Random) -> dict[str, Any]:
    action = rng.choice(["list", "keep", "dismiss"])
    if action == "list":
        return {"action": action}
    chosen = {"action": action, "group_id": group_id(me, others, rng)}
    return chosen | ({"keep_id": memory_id(me, others, rng)} if action == "keep" else {})


def remember_tool(me: Member, rng: random.Random) -> dict[str, Any]:
    said = draft(me, rng)
    return {"content": said.content, **({"scope": "team"} if said.scope else {})}


def update_tool(me: Member, others: list[Member], rng: random.Random) -> dict[str, Any]:
    target = memory_id(me, others, rng)
    return {"memory_id": target, "content": me.holding(target).fresh_text()}


MCP_ARGUMENTS: dict[str, Arguments] = {
    "remember": lambda me, others, rng: remember_tool(me, rng),
    "recall": lambda me, others, rng: {"query": query(me, others, rng)},
    "search": lambda me, others, rng: {"text": query(me, others, rng).split()[2]},
    "get": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "update": update_tool,
    "forget": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "list": lambda me, others, rng: {"scopes": ["team"]} if rng.random() < 0.3 else {},
    "stats": lambda me, others, rng: {},
    "entities": lambda me, others, rng: {"name": entity_ref(me, others, rng)},
    "conflicts": conflicts_tool,
    "history": lambda me, others, rng: {"memory_id": memory_id(me, others, rng)},
    "given": lambda me, others, rng: {"include_recalls": rng.random() < 0.5, "limit": 5},
}
ECHOING = {"given", "unhelpful", "judge_turn", MCP + "given"}
"""Steps whose answers echo what the tenant itself sent before (its prompts, kept in its
turns' records; `judge_turn` picks its turn from that list): a word of another tenant's it
put in an earlier query is not a leak."""


def test_every_operation_and_tool_is_driven() -> None:
    """A new operation or MCP tool cannot escape the isolation test: it must be given
    arguments here."""
    assert set(ARGUMENTS) == {operation.name for operation in OPERATIONS}
    assert set(MCP_ARGUMENTS) == {spec.name for spec in MCP_TOOLS}


# --- one step, and what is checked after it ---------------------------------------------


def step(site: Site, name: str, me: Member, others: list[Member], rng: random.Random) -> None:
    before = len(me.exchanges)
    take_step(site, name, me, others, rng)
    if name in ECHOING:
        said = "\n".join([*me.said, *(e.request for e in me.exchanges[:before])])
        for exchange in me.exchanges[before:]:
            exchange.request += "\n" + said


def take_step(site: Site, name: str, me: Member, others: list[Member], rng: random.Random) -> None:
    if name.startswith(MCP):
        tool = name.removeprefix(MCP)
        through_mcp(site.mcp_url, tool, MCP_ARGUMENTS[tool](me, others, rng), me, others)
    elif name == "export":
        list(me.engine.export())
    elif name == "status":
        me.client.get("/v1/status")
    elif name == "hook_context":
        me.client.post(HOOK_CONTEXT_ROUTE, json={"query": query(me, others, rng), "session": "s"})
    elif name == "spool_entries":
        text = f"user: Remember that {me.own.fresh_text()}.\nassistant: Will do."
        key = "".join(rng.choice("0123456789abcdef") for _ in range(32))
        entry = {"key": key, "text": text, "at": time.time(), "session_id": "s"}
        me.client.post(SPOOL_ENTRIES_ROUTE, json={"entries": [entry]})
    else:
        operation = next(candidate for candidate in OPERATIONS if candidate.name == name)
        arguments = operation.request.model_validate(ARGUMENTS[name](me, others, rng))
        call(operation, arguments, me, others)


def call(operation: Operation, arguments: Any, me: Member, others: list[Member]) -> None:
    theirs = {*foreign(me, others, "memory"), *foreign(me, others, "entity")}
    named = {
        value
        for key, value in arguments.model_dump().items()
        if key in ("memory_id", "keep_id", "ref", "into_id") and value in theirs
    }
    CAMPAIGN.foreign_ids += bool(named)
    try:
        operation.perform(me.engine, arguments)
    except NotFoundError:
        return
    except CortexError as refusal:
        if named:
            as_for_no_such_id(operation, arguments, named, me, refusal)
        return
    assert not named, f"{operation.name} accepted another tenant's id {named}"


def through_mcp(
    url: str, tool: str, arguments: dict[str, Any], me: Member, others: list[Member]
) -> None:
    """One tool call on the tenants' MCP endpoint with the member's key, recorded as an
    exchange (the answer's structured content, or its error text)."""

    async def run() -> tuple[bool, str]:
        headers = {"Authorization": f"Bearer {me.key}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await client.call_tool(tool, arguments)
        if result.structured_content is not None:
            return result.is_error, json.dumps(result.structured_content)
        return result.is_error, " ".join(str(getattr(part, "text", "")) for part in result.content)

    failed, answer = asyncio.run(run())
    CAMPAIGN.mcp_calls += 1
    me.exchanges.append(Exchange(json.dumps(arguments), 400 if failed else 200, answer))
    theirs = {*foreign(me, others, "memory"), *foreign(me, others, "entity")}
    named = {value for value in arguments.values() if isinstance(value, str) and value in theirs}
    CAMPAIGN.foreign_ids += bool(named)
    assert failed or not named, f"the {tool} tool accepted another tenant's id {named}"


def as_for_no_such_id(
    operation: Operation,
    arguments: Any,
    named: set[str],
    me: Member,
    refusal: CortexError,
) -> None:
    """A refusal naming another tenant's id must say what it says for an id that exists
    nowhere (a group found, a keep id that is not its member, say): the same error, the
    same words but for the id."""
    stand_ins = {value: str(uuid.uuid4()) for value in named}
    fields = arguments.model_dump()
    nowhere = arguments.model_copy(
        update={key: stand_ins[value] for key, value in fields.items() if value in stand_ins}
    )
    with pytest.raises(CortexError) as caught:
        operation.perform(me.engine, nowhere)

    def masked(text: str, ids: Iterable[str]) -> str:
        for ident in ids:
            text = text.replace(ident, "<id>").replace(ident[:8], "<id>")
        return text

    assert type(caught.value) is type(refusal), (refusal, caught.value)
    assert masked(str(caught.value), stand_ins.values()) == masked(str(refusal), named)


def check(me: Member, others: list[Member], name: str) -> None:
    for exchange in me.exchanges:
        for whose, holdings in me.unreadable(others):
            for mark in holdings.marks:
                if mark in exchange.answer and mark not in exchange.request:
                    CAMPAIGN.leaks.append(f"{name}: {me.name} saw {whose} {mark}")
    assert not CAMPAIGN.leaks, CAMPAIGN.leaks
    for exchange in me.exchanges:
        if exchange.status < 300:
            learn(me, exchange.answer)
    me.said.extend(exchange.request for exchange in me.exchanges)
    me.exchanges.clear()


def learn(me: Member, answer: str) -> None:
    """Ids its answers name (memories its captures made, entities, conflict groups), each
    put with its own data or its team's by the memory's scope."""
    try:
        decoded: Any = json.loads(answer)
    except ValueError:
        decoded = [json.loads(line) for line in answer.splitlines() if line.startswith("{")]
    for record in records(decoded):
        holdings = me.team if me.team and record.get("scope") == Scope.TEAM.value else me.own
        ident = record.get("id")
        if isinstance(ident, str) and len(ident) == UUID_CHARS:
            if "content" in record:
                holdings.learn("memory", ident)
            elif "name" in record and "aliases" in record:
                me.own.learn("entity", ident)
            elif "members" in record:
                shared = me.team and any(
                    m.get("scope") == Scope.TEAM.value for m in record["members"]
                )
                (me.team if shared and me.team else me.own).learn("group", ident)
        for ident in record.get("entity_ids") or []:
            holdings.learn("entity", ident)
        if isinstance(record.get("conflict_group_id"), str):
            holdings.learn("group", record["conflict_group_id"])


def records(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from records(item)
    elif isinstance(value, list):
        for item in value:
            yield from records(item)


Steps = list[tuple[str, int, int]]


# No shrinking: each example makes tenants and stores on one server, and a failure is
# reported as it was found (with every step) rather than after hundreds more of them.
@settings(
    max_examples=round(8 * SCALE),
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(
    tenants=st.integers(2, 3),
    steps=st.lists(
        st.tuples(st.sampled_from(STEPS), st.integers(0, 2), st.integers(0, 2**32)),
        min_size=40,
        max_size=80,
    ),
)
def test_no_tenant_ever_sees_another(site: Site, tenants: int, steps: Steps) -> None:
    server = site.server
    CAMPAIGN.examples += 1
    rng = random.Random(f"{CAMPAIGN.examples} {len(steps)} {tenants}")  # fresh names each
    team = Holdings(nonce(rng)) if rng.random() < 0.75 else None
    members = [member(server, rng, team if index < 2 else None) for index in range(tenants)]
    CAMPAIGN.tenants += tenants
    CAMPAIGN.teams += team is not None
    try:
        for me in members:
            for _ in range(2):
                me.engine.remember(MemoryDraft(content=me.own.fresh_text()))
            if me.team is not None:
                me.engine.remember(MemoryDraft(content=me.team.fresh_text(), scope=Scope.TEAM))
            check(me, [other for other in members if other is not me], "setup")
        for name, who, seed in steps:
            me = members[who % tenants]
            others = [other for other in members if other is not me]
            step(site, name, me, others, random.Random(seed))
            CAMPAIGN.operations += 1
            check(me, others, name)
        for me in members:  # what every tenant holds at the end, read whole
            others = [other for other in members if other is not me]
            list(me.engine.export())
            me.engine.list_memories(MemoryFilter(current_only=False, statuses=None), limit=500)
            check(me, others, "final read")
            assert (server.home / "tenants" / me.name).is_dir()
        owner = RemoteEngine.over_socket(server.home)  # the owner's store holds none of it
        assert owner.overview.stats().total == 0
        owner.close()
    finally:
        for me in members:
            me.client.close()
