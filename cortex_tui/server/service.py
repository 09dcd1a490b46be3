"""The state of a running service: the one engine, who may use it when, the
background capture of spooled turns, and the file watch it may own.

Engine calls are serialised by one lock (`engine_lock.py`): the embedded store is not
shared between threads, and a write must never interleave with another. Reads and the
pre hook go first; writes hold it in short slices, with their model calls made before.
Every write bumps a generation number, which keys the hook's context cache, so a cached
context never outlives a change to the store.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cortex_tui.agent_turn.context import ContextAnswer, assemble_context
from cortex_tui.agent_turn.drain import batch_capture, capture_turn, drain_spool
from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.plan import PrePlan
from cortex_tui.agent_turn.sessions import prune_sessions
from cortex_tui.agent_turn.spooling import spool_turn
from cortex_tui.config import Settings
from cortex_tui.engine.declaration import Operation
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.standing import StandingBlock, standing_block
from cortex_tui.errors import TooLargeError
from cortex_tui.given.record import Given, build_record
from cortex_tui.models import RecallResponse
from cortex_tui.recall.gate import gate_pool
from cortex_tui.recall.merge import merge_recalls
from cortex_tui.recall.request import RecallRequest
from cortex_tui.server.background import Background
from cortex_tui.server.compaction import QuietCompaction
from cortex_tui.server.engine_lock import EngineLock
from cortex_tui.spool.durable import Spool, TurnProgress
from cortex_tui.spool.entries import SpoolEntry, TurnEntry
from cortex_tui.store.base import MemoryFilter
from cortex_tui.sync.watch import ServiceWatch
from cortex_tui.untrusted.text import decode_bytes

T = TypeVar("T")
log = logging.getLogger("cortex_tui.server")
GATHER = 0.2
"""Seconds the capture waits for more turns while agents keep ending them."""
BUSY_WITHIN = 1.0
"""A drain that ended this recently means turns keep coming."""


class ContextCache:
    """LRU of recalls (the block and its ranked results) keyed by (session, project,
    normalised query, store generation): a repeated prompt is answered from memory,
    anything else is recalled afresh — never the previous turn's answer for a new
    prompt."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], RecallResponse] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...]) -> RecallResponse | None:
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return found

    def put(self, key: tuple[Any, ...], response: RecallResponse) -> None:
        if self.size <= 0:
            return
        self._items[key] = response
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


class Service:
    def __init__(self, engine: LocalEngine, settings: Settings, tenant: str | None = None) -> None:
        self.engine = engine
        self.settings = settings
        self.tenant = tenant
        """The tenant this service is for, on a team server; None: the home's owner."""
        self.team: Service | None = None
        """The service of the tenant's team's shared memories, when it has a team."""
        self.memory_cap: int | None = None
        """On a team server, the current memories this store may hold (`tenants.memories`)."""
        self.home: Path = settings.home
        self.started_at = time.time()
        self._lock = EngineLock()
        engine.between_batches = self._lock.let_waiting_in
        self._writers = threading.Lock()
        """One writer at a time, across all the holds of a capture batch."""
        self._generation = 0
        self._cache = ContextCache(settings.service.context_cache_size)
        self._last_request = time.monotonic()
        self._in_flight = 0
        self._counter_lock = threading.Lock()
        self._drain_wanted = threading.Event()
        self._stopping = threading.Event()
        self._drainer = threading.Thread(target=self._drain_loop, name="capture", daemon=True)
        self._background = Background()
        """Where the capture prepares its batches: below the agents' priority."""
        self.captured = 0
        self.watch = ServiceWatch(self.home, lambda _report: self.request_drain())
        self.store_damage: str | None = None
        """The last damage a request ran into (`StoreDamagedError`), for `serve --status`."""
        self.compaction = QuietCompaction(
            self._compact,
            lambda: self._generation,
            self.quiet_for,
            settings.service.compact_after_quiet,
        )

    # --- engine access ---------------------------------------------------------------

    def read(self, call: Callable[[], T]) -> T:
        with self._lock.hold("read", urgent=True):
            return call()

    def write(self, call: Callable[[], T]) -> T:
        with self._writers:
            return self._write_held(call, "write")

    def perform(self, operation: Operation, arguments: Any) -> Any:
        """One declared operation, as a write or a read as it declares; for a member of a
        team, on its own store or its team's as the operation says (`membership.py`)."""
        if self.team is not None and self.tenant is not None:
            from cortex_tui.server.membership import perform_as_member

            return perform_as_member(self, self.team, self.tenant, operation, arguments)
        return self.perform_here(operation, arguments)

    def perform_here(self, operation: Operation, arguments: Any, writer: str | None = None) -> Any:
        """`operation` on this service's own engine; `writer`: who is recorded as the
        author of what it writes (a member, on its team's store)."""

        if operation.adds_memories:
            self.check_room()

        def call() -> Any:
            self.engine.writer = writer
            try:
                return operation.perform(self.engine, arguments)
            finally:
                self.engine.writer = None

        run = self.write if operation.writes_for(arguments) else self.read
        return run(call)

    def _write_held(self, call: Callable[[], T], kind: str) -> T:
        with self._lock.hold(kind, urgent=False):
            try:
                return call()
            finally:
                self._generation += 1

    def check_room(self) -> None:
        """Refuse a write that would add memories to a store at its quota (team server)."""
        cap = self.memory_cap
        if cap is None:
            return
        held = self.read(lambda: self.engine.store.count_memories(MemoryFilter()))
        if held >= cap:
            whose = f"tenant {self.tenant}" if self.tenant else "the team's shared store"
            raise TooLargeError(
                f"{whose} holds {held} memories, the most tenants.memories allows ({cap}); "
                "forget some, or ask the server's admin to raise it"
            )

    def contended(self) -> bool:
        """Whether a read or a hook waits for the engine: a long write should pause."""
        return self._lock.contended()

    def begin_request(self) -> None:
        with self._counter_lock:
            self._in_flight += 1
            self._last_request = time.monotonic()

    def end_request(self) -> None:
        with self._counter_lock:
            self._in_flight -= 1
            self._last_request = time.monotonic()

    def busy(self) -> bool:
        """Whether a request is being answered now."""
        with self._counter_lock:
            return self._in_flight > 0

    def idle_for(self) -> float:
        """Seconds without a request; never idle while it watches files for sync."""
        return 0.0 if self.watch.watched.paths else self.quiet_for()

    def quiet_for(self) -> float:
        """Seconds without a request (0 while one is answered)."""
        with self._counter_lock:
            return 0.0 if self._in_flight else time.monotonic() - self._last_request

    def _compact(self) -> bool:
        """Behind any writer, and behind anyone waiting for the engine."""
        with self._writers, self._lock.hold("compact", urgent=False):
            return self.engine.store.compact()

    # --- hooks -----------------------------------------------------------------------

    def hook_context(self, plan: PrePlan) -> ContextAnswer:
        """The context for a pre hook (`agent_turn/context.py`) under one hold of the
        engine, with a member's team store beside its own. The recall comes from the
        cache when the same prompt of the same session was recalled since the store last
        changed. The query is embedded before the engine is held (the recall finds it in
        the query cache)."""
        if plan.query:
            self.engine.embedder.embed_query(plan.query)
        with self._lock.hold("hook", urgent=True):
            if plan.project and self.engine.adopt_project(plan.project, plan.legacy_project):
                self._generation += 1
            return assemble_context(plan, self.settings, self._standing, self._cached_recall(plan))

    def _standing(self, project: str | None, budget: int, max_chars: int) -> StandingBlock:
        """The store's standing block, then its team's in what room is left."""
        own = standing_block(self.engine, project, budget, max_chars)
        team = self.team
        if team is None or max_chars - len(own.text) <= 1:
            return own
        left = max_chars - (len(own.text) + 1 if own.text else 0)
        shared = team.read(lambda: standing_block(team.engine, project, budget, left))
        text = "\n".join(block for block in (own.text, shared.text) if block)
        return StandingBlock(text, own.memories + shared.memories)

    def _cached_recall(
        self, plan: PrePlan
    ) -> Callable[[RecallRequest], tuple[RecallResponse, list[str]]]:
        """The recall of a pre hook: from the cache for a prompt recalled since the store
        (or its team's) last changed, its reads counted once; a member's two stores each
        asked without the floor, for as many as the gate reads, then merged and gated."""
        team = self.team

        def recall(request: RecallRequest) -> tuple[RecallResponse, list[str]]:
            generations = (self._generation, team._generation if team else 0)
            key = (
                *plan.cache_key(),
                request.max_chars,
                generations,
                tuple(request.given_already),
            )
            cached = self._cache.get(key)
            if cached is not None:
                return cached, []
            if team is None:
                response = self.engine.recall(request)
            else:
                wide = (
                    None
                    if request.min_relevance is None
                    else gate_pool(self.settings.recall.default_limit)
                )
                ungated = request.model_copy(update={"min_relevance": None, "limit": wide})
                answers = [
                    self.engine.recall(ungated),
                    team.read(lambda: team.engine.recall(ungated)),
                ]
                response = merge_recalls(request, answers, self.settings.recall, self.engine.now())
            self._cache.put(key, response)
            return response, [result.memory.id for result in response.results]

        return recall

    def record_given(self, plan: PrePlan, given: Given) -> None:
        """Keep what a pre hook gave (its given record), after its answer is sent; a record
        that cannot be written costs the log a line, never the agent its turn."""
        if not self.settings.injections.enabled:
            return
        try:
            record = build_record(
                plan.asker(), self.engine.now(), given, self.settings.recall.budget_tokens
            )
            self.engine.given.record(record)
        except Exception:
            log.exception("the given record was not kept")

    def touch(self, memory_ids: list[str]) -> None:
        """Count the reads of a pre hook's memories, behind any waiting reader; not a
        change to what recall returns, so the context cache stays valid. A member's
        shared memories are counted in its team's store."""
        if memory_ids:
            with self._lock.hold("touch", urgent=False):
                self.engine.touch(memory_ids)
            if self.team is not None:
                self.team.touch(memory_ids)

    def warm_up(self) -> None:
        """One recall before the first hook arrives: model, store and caches get hot, so
        the first real turn is as fast as the rest."""
        started = time.perf_counter()
        with self._lock.hold("read", urgent=True):
            self.engine.recall(RecallRequest(query="warm up", update_access=False, limit=5))
        log.info("warmed up in %.0f ms", (time.perf_counter() - started) * 1000)

    def spool_event(self, body: bytes) -> None:
        """Spool the new turn of the conversation a post hook's event names, as the
        hook process would, and have it captured (the drain finds what is pending)."""
        event = parse_event(decode_bytes(body))
        if spool_turn(event, self.home, log, self.engine.privacy.clean) is not None:
            self.request_drain()

    def request_drain(self) -> None:
        self._drain_wanted.set()

    def start_capture(self) -> None:
        """Replay whatever the spool holds (turns a crash left unfinished) and then wait
        for the hooks' nudges."""
        self._drain_wanted.set()
        if forgotten := prune_sessions(self.home):
            log.info("forgot the hook state of %d session(s) untouched for a month", forgotten)
        self._drainer.start()
        self.watch.reload()
        self.compaction.start()

    def stop_capture(self) -> None:
        """Let the turn being captured finish; the rest stays spooled for the next start."""
        self.watch.stop()
        self.compaction.stop()
        self._stopping.set()
        self._drain_wanted.set()
        if self._drainer.is_alive():
            self._drainer.join()
        self._background.close()

    def spool_pending(self) -> int:
        return len(Spool(self.home / "spool", log).pending())

    def _drain_loop(self) -> None:
        spool = Spool(self.home / "spool", log)
        last_drain = 0.0
        while not self._stopping.is_set():
            self._drain_wanted.wait()
            if time.monotonic() - last_drain < BUSY_WITHIN and _only_turns(spool):
                # Agents keep ending turns: let the next few join this batch. A batch's
                # flush costs more CPU than its turns' writes; one turn at a time, it
                # made capture the service's largest cost under load.
                self._stopping.wait(GATHER)
            self._drain_wanted.clear()
            if self._stopping.is_set():
                return
            try:
                drain_spool(
                    spool, self._capture_one, log, self._capture_turns, self.engine.privacy.clean
                )
                last_drain = time.monotonic()
            except _Stopping:
                return
            except Exception:
                log.exception("capture failed; the turn stays spooled and is retried")
                time.sleep(1.0)
                self._drain_wanted.set()

    def _capture_one(self, item: SpoolEntry, progress: TurnProgress) -> str:
        if self._stopping.is_set():
            raise _Stopping
        summary = capture_turn(self.engine, item, progress, self.write)
        self.captured += 1
        return summary

    def _capture_turns(
        self, items: list[TurnEntry], progresses: list[TurnProgress]
    ) -> Iterator[list[tuple[int, str | Exception]]]:
        """Spooled turns captured together, counted as each durable slice is settled."""
        for settled in batch_capture(self.engine, _CaptureHold(self))(items, progresses):
            yield settled
            self.captured += sum(not isinstance(outcome, Exception) for _, outcome in settled)

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "home": str(self.home),
            "store": self.engine.store.location,
            "embedder": self.engine.embedder.name,
            "uptime_s": round(time.time() - self.started_at, 1),
            "idle_s": round(self.idle_for(), 1),
            "idle_timeout_s": self.settings.service.idle_timeout,
            "spool_pending": self.spool_pending(),
            "spool_quarantined": Spool(self.home / "spool", log).quarantined(),
            "captured": self.captured,
            "watching": self.watch.watched.paths,
            "watch_error": self.watch.error,
            "store_damage": self.store_damage,
            "context_cache": {"hits": self._cache.hits, "misses": self._cache.misses},
            "compaction": self.compaction.status(),
            "locks": self._lock.times.summary(),
        }


def _only_turns(spool: Spool) -> bool:
    """Whether everything waiting is conversation turns (a file's changes are saved by
    a person who waits to recall them: no gathering for those)."""
    return all(entry["kind"] == "turn" for entry in spool.pending())


class _CaptureHold:
    """The engine as the capture drain holds it: other writers kept out for a batch, the
    engine held a slice at a time (ending early when a reader waits); at shutdown, no
    new batch starts (the rest stays spooled)."""

    def __init__(self, service: Service) -> None:
        self._service = service

    def __call__(self, work: Callable[[], T]) -> T:
        return self._service._write_held(work, "capture")

    def contended(self) -> bool:
        return self._service.contended()

    @contextmanager
    def writing(self) -> Iterator[None]:
        if self._service._stopping.is_set():
            raise _Stopping
        with self._service._writers:
            yield

    def aside(self, work: Callable[[], T]) -> T:
        return self._service._background.run(work)


class _Stopping(BaseException):
    """Raised inside the drain loop at shutdown: the remaining turns stay spooled."""
