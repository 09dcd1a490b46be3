"""`--hook pre` and `--hook post`: forwarded to the local service, or run in-process.

Every failure is logged to `$CORTEX_HOME/logs/hooks.log` and turned into "exit 0, print
nothing" (exit 2 would erase the user's prompt on UserPromptSubmit, and make Claude keep
going on Stop). `--strict` surfaces errors instead, for debugging.
"""

from __future__ import annotations

import _thread
import os
import sys
import time

from cortex_tui.agent_turn.events import for_pre
from cortex_tui.clients import local_service
from cortex_tui.hooks.logs import hook_logger
from cortex_tui.quick_settings import cold_start_wait, daemon_on, hook_timeout, remote_server
from cortex_tui.untrusted.text import decode_bytes

PRE_HOOK_CEILING = 9.0
"""Seconds a pre hook may take at most, cold start included: `hook install` gives it 10,
after which Claude Code kills it and reports a failed hook."""
INPUT_LIMIT = 16 * 1024 * 1024
"""Bytes of stdin a hook reads at most: agents send a few KB; more is not an event."""


class HookInputTooLarge(Exception):
    pass


TYPE_CHECKING = False  # the hook process does not import `typing` (see logs.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO, TextIO

    from cortex_tui.agent_turn.missed import Missed
    from cortex_tui.agent_turn.plan import PrePlan
    from cortex_tui.clients.local_service import StrPath
    from cortex_tui.config import Settings
    from cortex_tui.engine.local import LocalEngine
    from cortex_tui.log_protocol import Log
    from cortex_tui.models import RecallResponse
    from cortex_tui.recall.request import RecallRequest


class HookTimeout(Exception):
    pass


def run_hook(
    kind: str, stdin: BinaryIO, stdout: TextIO, *, strict: bool = False, text_format: bool = False
) -> int:
    from cortex_tui.paths import home_dir

    started = time.perf_counter()
    home = home_dir()
    log = hook_logger(home)
    server = remote_server(home)
    via = "server" if server else "service" if daemon_on(home) else "in-process"
    cap = hook_timeout(home, kind)
    deadline = time.monotonic() + cap
    # A pre hook that finds the service starting (the first prompt of a session) waits
    # for it, within what `hook install` gives it; a warm prompt keeps its cap.
    cold_wait = 0.0
    if kind == "pre" and via == "service":
        cold_wait = min(cold_start_wait(home), max(0.0, PRE_HOOK_CEILING - cap))

    read: list[str] = []

    def work() -> str:
        raw = _read_input(stdin)
        read.append(raw)
        if server:
            return _via_server(kind, raw, home, server, text_format, deadline, log)
        if via == "service":
            return _via_service(kind, raw, home, text_format, deadline, cold_wait, log)
        return _in_process(kind, raw, home, text_format, log)

    try:
        output = _within(cap + cold_wait, work)
    except Exception as exc:
        if strict:
            raise
        log.warning(
            "%s hook (%s) failed after %.0f ms: %s: %s",
            kind,
            via,
            (time.perf_counter() - started) * 1000,
            type(exc).__name__,
            exc,
        )
        gave_up = isinstance(exc, HookTimeout | local_service.ServiceUnavailable)
        if kind == "pre" and read and via == "service" and gave_up:
            outcome: Missed = "timed out" if isinstance(exc, HookTimeout) else "no service"
            _record_missed(read[0].encode(), home, outcome, log)
        return 0
    if output:
        stdout.write(output + "\n")
    stdout.flush()
    log.info(
        "%s hook (%s) done in %.0f ms (%d chars out)",
        kind,
        via,
        (time.perf_counter() - started) * 1000,
        len(output),
    )
    return 0


def _read_input(stdin: BinaryIO) -> str:
    """The event as text: bounded (a stream that never ends is not an event), and valid
    Unicode whatever the agent sent (invalid UTF-8 becomes U+FFFD)."""
    data = stdin.read(INPUT_LIMIT + 1)
    if len(data) > INPUT_LIMIT:
        raise HookInputTooLarge(f"input over {INPUT_LIMIT // (1024 * 1024)} MB: not an event")
    return decode_bytes(data)


def _within(seconds: float, work: Callable[[], str]) -> str:
    """Run `work` with a hard wall-clock cap; past it the hook gives up (prints nothing).

    The worker thread cannot be killed, so the caller exits the process right after a
    timeout (see `hook_main`): its store lock and files are released by the OS, and an
    unfinished capture stays in the spool for the next run. Built on `_thread`, which
    the interpreter has loaded already (`threading` costs a hook ~2 ms of CPU).
    """
    result: list[str] = []
    failure: list[BaseException] = []
    finished = _thread.allocate_lock()
    finished.acquire()

    def target() -> None:
        try:
            result.append(work())
        except BaseException as exc:
            failure.append(exc)
        finally:
            finished.release()

    _thread.start_new_thread(target, ())
    if not finished.acquire(timeout=seconds):
        raise HookTimeout(
            f"gave up after {seconds:.1f} s (hooks.pre_timeout/post_timeout, cold_start_wait)"
        )
    if failure:
        raise failure[0]
    return result[0] if result else ""


def _via_server(
    kind: str,
    raw: str,
    home: StrPath,
    server: tuple[str, str, str],
    text_format: bool,
    deadline: float,
    log: Log,
) -> str:
    """A home that sends its memories to a team server (`CORTEX_URL`): no local service."""
    from cortex_tui.clients.team_server import RemoteLink
    from cortex_tui.hooks.remote import post_via_server, pre_via_server

    link = RemoteLink(*server)
    if kind == "pre":
        return pre_via_server(for_pre(raw), home, link, text_format, deadline, log)
    return post_via_server(raw, home, link, deadline, log)


def _via_service(
    kind: str,
    raw: str,
    home: StrPath,
    text_format: bool,
    deadline: float,
    cold_wait: float,
    log: Log,
) -> str:
    """The fast path: the service holds the warm model and store; this process only
    forwards the event (pre), or hands it to the service to spool, spooling it itself
    when the service does not (post). A service that is not running is started, unless
    it refused to start within the last minute (a damaged store, say): every turn would
    spawn it again for nothing. `deadline` is the warm cap's (monotonic); a pre hook may
    add `cold_wait` to it while the service starts."""
    if kind == "pre":
        event = for_pre(raw).encode()
        return _pre_via_service(event, home, text_format, deadline, cold_wait, log)
    if _spooled_by_service(raw.encode(), home, deadline, log):
        return ""
    from pathlib import Path

    from cortex_tui.agent_turn.events import parse_event
    from cortex_tui.agent_turn.spooling import spool_turn

    spool = spool_turn(parse_event(raw), Path(home), log)
    if spool is None or not spool.pending():
        return ""
    try:
        local_service.call_raw(home, "POST", "/v1/spool/drain", timeout=2.0)
    except local_service.ServiceUnavailable:
        # Started in the background; it replays the spool once it is up.
        if local_service.start_refusal(home) is None:
            local_service.start(home, wait=0.0)
    return ""


def _spooled_by_service(event: bytes, home: StrPath, deadline: float, log: Log) -> bool:
    """Whether the service spooled the turn (it answers once the spool is fsynced); if
    not (not running, too busy to answer within half the budget, started by an earlier
    version), the hook spools it itself. Both handling one Stop is harmless: a turn's
    key is its session and text, the spool keeps one entry per key, and a Stop that
    comes again with nothing new makes no turn (`agent_turn/sessions.py`)."""
    try:
        half = (deadline - time.monotonic()) / 2
        status, _ = _send(event, local_service.POST_HOOK_ROUTE, home, half)
    except local_service.ServiceUnavailable:
        return False
    if status >= 400:
        log.info("the service did not spool the turn (HTTP %d): spooling it here", status)
        return False
    return True


def _pre_via_service(
    event: bytes, home: StrPath, text_format: bool, deadline: float, cold_wait: float, log: Log
) -> str:
    """The event as the agent sent it, answered with the hook's output as it is: the
    hook process encodes and decodes no JSON (`json` costs it ~6 ms of CPU, a large
    part of a pre hook on a busy machine). No status call first.

    A service that is not there, or still starting when the prompt was sent or when its
    answer was given up on, is started and waited for up to `hooks.cold_start_wait`
    more: the first prompt of a session gets its memories (a prompt sent while the
    engine opened waits in the socket's queue, and the start marker goes just before
    the service serves it, so the marker is read before asking as well as after). A
    SessionStart does not wait: it starts the service for the prompt to come. A service
    that is up but too busy to answer within the cap gives nothing this turn."""
    route = local_service.PRE_HOOK_ROUTE + ("?format=text" if text_format else "")
    starting_when_asked = local_service.start_under_way(home)  # no marker: one failed open
    try:
        return _pre_answer(event, route, home, deadline - time.monotonic(), log)
    except local_service.ServiceUnavailable as exc:
        starting = starting_when_asked or local_service.start_under_way(home)
        if exc.connected and not starting:
            log.info("the service is too busy to answer in time: no context this turn")
            _keep_prompt_here(event, home, log)
            _record_missed(event, home, "timed out", log)
            return ""
        if _is_session_start(event):
            if not exc.connected:
                _start_in_background(home, log)
            _record_missed(event, home, "no service", log)
            return ""
    # The prompt is kept first: the cold wait may run to the hook's hard cap.
    _keep_prompt_here(event, home, log)
    cold_deadline = deadline + cold_wait
    if not _started(home, cold_deadline, log):
        _record_missed(event, home, "no service", log)
        return ""
    return _pre_answer(event, route, home, cold_deadline - time.monotonic(), log)


def _is_session_start(event: bytes) -> bool:
    """Whether an agent's adapter reads the event as the start of a session, without
    `json` (the hook process does not import it for an ordinary prompt)."""
    from cortex_tui.agent_turn.agents import ADAPTERS

    return any(adapter.starts_session_raw(event) for adapter in ADAPTERS)


def _pre_answer(event: bytes, route: str, home: StrPath, seconds: float, log: Log) -> str:
    status, answer = _send(event, route, home, seconds)
    if status == 404 and b'"error"' not in answer:
        # No such route (not an engine error, which names itself): a service started
        # by an earlier version, which lives on while hooks keep it busy. Ask it to
        # stop, and the next turn starts this version's.
        log.warning("the running service predates this hook; restarting it")
        local_service.call_raw(home, "POST", "/v1/shutdown", timeout=1.0)
        return ""
    if status >= 400:
        raise local_service.answer_error(status, answer)
    return answer.decode("utf-8", errors="replace")


def _start_in_background(home: StrPath, log: Log) -> None:
    """A session starts: start the service for its first prompt, without waiting."""
    refusal = local_service.start_refusal(home)
    if refusal is None:
        local_service.start(home, wait=0.0)
        log.info("session starts: the service is starting for its first prompt")
    else:
        log.warning("the service does not start: %s", refusal)


def _record_missed(event: bytes, home: StrPath, outcome: Missed, log: Log) -> None:
    """The record of a prompt given nothing because the hook gave up (`given` tells it
    from one nothing bore on); imported on this path alone."""
    from cortex_tui.agent_turn.missed import record_missed

    record_missed(str(home), event.decode("utf-8", errors="replace"), outcome, log)


def _keep_prompt_here(event: bytes, home: StrPath, log: Log) -> None:
    """The service did not take the prompt: keep it for its turn's capture here."""
    from pathlib import Path

    from cortex_tui.agent_turn.events import parse_event
    from cortex_tui.agent_turn.plan import keep_prompt

    keep_prompt(parse_event(event.decode("utf-8", errors="replace")), Path(home), log)


def _send(event: bytes, route: str, home: StrPath, seconds: float) -> tuple[int, bytes]:
    """The agent's event to one of the service's hook routes, as it came."""
    return local_service.call_raw(
        home,
        "POST",
        route,
        event,
        timeout=max(0.05, seconds),
        content_type="application/octet-stream",
    )


def _started(home: StrPath, deadline: float, log: Log) -> bool:
    """Start the service within the pre hook's budget; say in the log why not."""
    refusal = local_service.start_refusal(home)
    if refusal is None:
        if local_service.start(home, wait=max(0.0, deadline - time.monotonic())):
            return True
        refusal = local_service.start_refusal(home)
    if refusal:
        log.warning("the service does not start, no context this turn: %s", refusal)
    else:
        log.info("service still starting: no context this turn")
    return False


def _in_process(kind: str, raw: str, home: str, text_format: bool, log: Log) -> str:
    """`CORTEX_DAEMON=0`: this process opens the store itself (tests, one-shot scripts)."""
    import warnings
    from pathlib import Path

    from cortex_tui.agent_turn.drain import capture_turn, drain_spool
    from cortex_tui.agent_turn.events import parse_event
    from cortex_tui.agent_turn.plan import prepare, query_chars_of
    from cortex_tui.agent_turn.spooling import spool_turn
    from cortex_tui.config import load_settings

    # A note while loading settings (an old weight table, say) goes to the log, not
    # to the agent's stderr.
    warnings.showwarning = lambda message, *_: log.warning("%s", message)
    settings = load_settings()
    if kind == "pre":
        limits = (settings.hooks.min_prompt_chars, query_chars_of(settings))
        event, plan = prepare(raw, Path(home), limits, log)
        if plan is None:
            return ""
        return event.output(_in_process_context(plan, settings, log), text_format)
    from cortex_tui.privacy.redactor import Redactor

    redact = Redactor(settings.privacy).clean
    spool = spool_turn(parse_event(raw), Path(home), log, redact)
    if spool is None or not spool.pending():
        return ""
    # The turn is captured on the agent's clock here: close calls get the hook's LLM
    # budget, and no pair model is loaded (a second or two for a big one); the service,
    # which captures in the background, uses both.
    write = settings.write.model_copy(
        update={"judge_budget_ms": settings.write.judge_budget_ms_hook, "pair_model": None}
    )
    engine = _open_engine(settings.model_copy(update={"write": write}), log)
    try:
        drain_spool(
            spool,
            lambda item, progress: capture_turn(engine, item, progress),
            log,
            redact=redact,
        )
    finally:
        engine.close()
    return ""


def _in_process_context(plan: PrePlan, settings: Settings, log: Log) -> str:
    """The plan's context from a store this process opens; its reads counted and its
    given record kept before the store is closed (no service to do it after the
    answer; a record not kept costs the log a line, never the prompt its context)."""
    from functools import partial

    from cortex_tui.agent_turn.context import assemble_context
    from cortex_tui.engine.standing import standing_block
    from cortex_tui.given.record import build_record

    engine = _open_engine(settings, log)
    try:
        if plan.project and plan.legacy_project:
            engine.adopt_project(plan.project, plan.legacy_project)

        def recall(request: RecallRequest) -> tuple[RecallResponse, list[str]]:
            response = engine.recall(request)
            return response, [result.memory.id for result in response.results]

        answer = assemble_context(plan, settings, partial(standing_block, engine), recall)
        if answer.read:
            engine.touch(answer.read)
        if settings.injections.enabled:
            try:
                budget = settings.recall.budget_tokens
                record = build_record(plan.asker(), engine.now(), answer.given, budget)
                engine.given.record(record)
            except Exception as exc:
                log.warning("the given record was not kept: %s", exc)
    finally:
        engine.close()
    return answer.given.context


def _open_engine(settings: Settings, log: Log) -> LocalEngine:
    """The engine, its log lines (a home made private, a model made) sent to the hook
    log: with no handler, Python would print them on stderr, and a hook prints nothing
    but its answer."""
    import logging

    from cortex_tui.engine.open import open_engine

    class ToHookLog(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            say = log.warning if record.levelno >= logging.WARNING else log.info
            say("%s: %s", record.name, record.getMessage())

    logging.getLogger().addHandler(ToHookLog())
    logging.getLogger("cortex_tui").setLevel(logging.INFO)
    return open_engine(settings)


def hook_main(argv: list[str]) -> int:
    """Entry for `cortex-tui --hook pre|post [--format json|text] [--strict] [--home H]`.
    Arguments are read by hand (argparse costs a hook ~8 ms); one it does not know is
    ignored, and a hook that cannot tell what it is exits 0 (exit 2 would block the
    agent)."""
    options = _hook_options(argv)
    kind = options.get("--hook")
    if kind not in ("pre", "post"):
        os._exit(0)
    if options.get("--home"):
        os.environ["CORTEX_HOME"] = options["--home"]
    strict = "--strict" in options
    # Agents read hook output as UTF-8 whatever the locale says.
    sys.stdout.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    try:
        code = run_hook(
            kind,
            sys.stdin.buffer,
            sys.stdout,
            strict=strict,
            text_format=options.get("--format") == "text",
        )
    except Exception:
        if strict:
            raise
        code = 0
    sys.stdout.flush()
    # Leave at once: a worker past its wall-clock cap must not hold the agent up.
    os._exit(code)


def _hook_options(argv: list[str]) -> dict[str, str]:
    """`--name value` and `--name=value` pairs, and `--strict` as a flag."""
    options: dict[str, str] = {}
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name == "--strict":
            options[name] = ""
        elif name in ("--hook", "--format", "--home"):
            options[name] = value if equals else next(words, "")
    return options
