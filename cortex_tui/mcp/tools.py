"""The MCP tools: what each takes, answers and does, and when a model should call it.

A tool that is an engine operation as it stands is derived from its declaration (its
arguments, answer, description and whether it writes); the rest take a shape of their
own (`shapes.py`) and compose operations. Each description opens with when to call the
tool, then says what comes back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.operations import operation_of
from cortex_tui.engine.protocol import Curation, Engine, EntityGraph, Overview
from cortex_tui.errors import InvalidInputError, NotFoundError
from cortex_tui.given.record import (
    Asker,
    Given,
    GivenRecord,
    build_record,
    results_block,
)
from cortex_tui.graph.views import Neighbourhood
from cortex_tui.mcp.shapes import (
    ArchiveQuote,
    ConflictsAnswer,
    ConflictsArguments,
    EntitiesArguments,
    GivenAnswer,
    GivenArguments,
    ListArguments,
    RecallAnswer,
    RecallArguments,
    RememberAnswer,
    RememberArguments,
    SearchAnswer,
    SearchArguments,
)
from cortex_tui.models import Memory, MemoryPage, RecallResponse
from cortex_tui.recall.request import RecallRequest

log = logging.getLogger("cortex_tui.mcp")
GIVEN_PAGE = 50
"""Records read at a time while looking for the hooks' among a client's own recalls."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    arguments: type[BaseModel]
    answer: Any
    description: str
    perform: Callable[[Engine, Any], Any]
    read_only: bool
    destructive: bool = False


def _derived(operation: Operation, when: str, *, destructive: bool = False) -> ToolSpec:
    return ToolSpec(
        name=operation.name,
        arguments=operation.request,
        answer=operation.response,
        description=f"{when} {operation.description}",
        perform=operation.perform,
        read_only=not operation.may_write,
        destructive=destructive,
    )


def _said(method: Callable[..., Any], *, lower: bool = False) -> str:
    """An operation's description, to quote in a tool's own."""
    description = operation_of(method).description
    return description[0].lower() + description[1:] if lower else description


def _remember(engine: Engine, arguments: RememberArguments) -> RememberAnswer:
    result = engine.remember(arguments.draft())
    return RememberAnswer(queued=False, result=result, note=result.reason or result.action.value)


def _recall(engine: Engine, arguments: RecallArguments) -> RecallAnswer:
    request = arguments.request()
    response = engine.recall(request)
    _record_recall(engine, request, response)
    return RecallAnswer.of(response, breakdown=arguments.breakdown)


def _record_recall(engine: Engine, request: RecallRequest, response: RecallResponse) -> None:
    """Keep what the client was given (every result, in full: no budget cuts a tool's
    answer); a record that cannot be kept costs a log line, never the answer."""
    now = engine.now()
    asker = Asker(agent="mcp", trigger="recall", project=request.project, query=request.query)
    given = Given(
        results_block(response.results, now),
        recalled=response.results,
        held_back=response.held_back,
    )
    try:
        engine.given.record(build_record(asker, now, given, request.budget_tokens))
    except Exception as exc:
        log.warning("the recall's record was not kept: %s", exc)


def _given(engine: Engine, arguments: GivenArguments) -> GivenAnswer:
    turns: list[GivenRecord] = []
    before = None
    while len(turns) < arguments.limit:
        page = engine.given.records(session=arguments.session, limit=GIVEN_PAGE, before=before)
        wanted = (turn for turn in page if arguments.include_recalls or turn.agent != "mcp")
        turns += list(wanted)[: arguments.limit - len(turns)]
        if len(page) < GIVEN_PAGE:
            break
        before = page[-1].at
    if not turns:
        note = "no context has been given yet" + (
            f" in a session starting {arguments.session!r}" if arguments.session else ""
        )
    else:
        note = f"the last {len(turns)} context(s) given, newest first"
    return GivenAnswer(turns=turns, note=note)


def _search(engine: Engine, arguments: SearchArguments) -> SearchAnswer:
    page = engine.list_memories(arguments.memory_filter(), arguments.limit, arguments.offset)
    answer = SearchAnswer(memories=page.memories, next_offset=page.next_offset, total=page.total)
    if arguments.include_archive and arguments.offset is None:
        # The archive's search ranks by meaning and words together (as `cortex-tui
        # sessions search`); the tool promises the words, so only quotes holding them.
        found = engine.archive.search(arguments.text, arguments.project, arguments.limit)
        answer.quotes = [
            ArchiveQuote.of(quote) for quote in found if arguments.holds_every_word(quote.text)
        ]
    return answer


def _list(engine: Engine, arguments: ListArguments) -> MemoryPage:
    return engine.list_memories(arguments.memory_filter(), arguments.limit, arguments.offset)


def _entities(engine: Engine, arguments: EntitiesArguments) -> Neighbourhood:
    try:
        return engine.graph.neighbourhood(arguments.name, arguments.hops)
    except NotFoundError:
        close = [match.entity.name for match in engine.graph.search(arguments.name, 5)]
        hint = f"; the closest names are {', '.join(close)}" if close else ""
        raise NotFoundError(f"no entity is named {arguments.name!r}{hint}") from None


def _conflicts(engine: Engine, arguments: ConflictsArguments) -> ConflictsAnswer:
    settled: list[Memory] = []
    if arguments.action != "list":
        group = _required(arguments.group_id, "group_id", arguments.action)
        if arguments.action == "keep":
            keep = _required(arguments.keep_id, "keep_id", "keep")
            settled = [engine.curation.resolve(group, keep)]
        elif arguments.action == "merge":
            settled = [
                engine.curation.merge(group, _required(arguments.content, "content", "merge"))
            ]
        else:
            settled = engine.curation.dismiss(group)
    return ConflictsAnswer(groups=engine.curation.conflicts(), settled=settled)


def _required(value: str | None, field: str, action: str) -> str:
    if not value:
        raise InvalidInputError(f"action {action!r} needs {field}; list the conflicts to find it")
    return value


REMEMBER = ToolSpec(
    name="remember",
    arguments=RememberArguments,
    answer=RememberAnswer,
    description=(
        "Call when you learn something worth knowing in a later session: a decision, a "
        "preference, a rule, a fact about the code or the people. "
        f"{_said(Engine.remember)} Answers what was done and why."
    ),
    perform=_remember,
    read_only=False,
)
RECALL = ToolSpec(
    name="recall",
    arguments=RecallArguments,
    answer=RecallAnswer,
    description=(
        "Call before answering anything that earlier sessions may have settled (how things "
        f"are done here, what was decided, who prefers what). {_said(Engine.recall)} "
        "Ask for the breakdown to see why each ranked where it did."
    ),
    perform=_recall,
    # It records access (what decay and ranking read), which is bookkeeping rather than
    # a change a client should ask the user's leave for.
    read_only=True,
)
SEARCH = ToolSpec(
    name="search",
    arguments=SearchArguments,
    answer=SearchAnswer,
    description=(
        "Call to find memories containing exact words (a name, an error code, a file); use "
        "recall for questions. Answers the current memories holding every word, newest first. "
        "With include_archive, also quotes what was said in past sessions holding the words "
        "(the turn archive keeps every captured prompt and answer, much of which no memory "
        "holds): each quote with its date, session, speaker and id, after the memories."
    ),
    perform=_search,
    read_only=True,
)
LIST = ToolSpec(
    name="list",
    arguments=ListArguments,
    answer=MemoryPage,
    description=(
        "Call to browse what is remembered about a project, type or tag. "
        f"{_said(Engine.list_memories)}"
    ),
    perform=_list,
    read_only=True,
)
ENTITIES = ToolSpec(
    name="entities",
    arguments=EntitiesArguments,
    answer=Neighbourhood,
    description=(
        "Call to see what is known around a person, project, service or tool: "
        f"{_said(EntityGraph.neighbourhood, lower=True)}"
    ),
    perform=_entities,
    read_only=True,
)
CONFLICTS = ToolSpec(
    name="conflicts",
    arguments=ConflictsArguments,
    answer=ConflictsAnswer,
    description=(
        "Call when recall shows memories that contradict each other, or to review them. "
        f"Lists {_said(Curation.conflicts, lower=True)[:-1]}; "
        "with an action, settles one group (keep one member, merge them, or dismiss) and "
        "answers what stays current and the groups still open."
    ),
    perform=_conflicts,
    read_only=False,
)

GIVEN = ToolSpec(
    name="given",
    arguments=GivenArguments,
    answer=GivenAnswer,
    description=(
        "Call when the user asks what memory gave you for the last prompt, or why you were "
        "told something. Answers the context the hooks injected on the last prompts: each "
        "memory with the score breakdown that placed it then, and what the budget left out."
    ),
    perform=_given,
    read_only=True,
)

TOOLS: tuple[ToolSpec, ...] = (
    REMEMBER,
    RECALL,
    SEARCH,
    _derived(
        operation_of(Engine.get),
        "Call to read one memory in full, e.g. a result of recall or search.",
    ),
    _derived(
        operation_of(Engine.update),
        "Call when a remembered fact changed or was wrong (not to add a new one).",
    ),
    _derived(
        operation_of(Engine.forget),
        "Call when a memory must no longer be recalled (wrong, obsolete, or private).",
        destructive=True,
    ),
    LIST,
    _derived(operation_of(Overview.stats), "Call to see how much is remembered and where."),
    ENTITIES,
    CONFLICTS,
    _derived(operation_of(Engine.history), "Call to see how a fact changed over time."),
    GIVEN,
)
