"""`--hook pre` and `--hook post`, run in the calling process.

Every failure is logged to `$CORTEX_HOME/logs/hooks.log` and turned into "exit 0, print
nothing" (exit 2 would erase the user's prompt on UserPromptSubmit, and make Claude keep
going on Stop). `--strict` surfaces errors instead, for debugging.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cortex_tui.engine.spool import Offsets, Spool, turn_key
from cortex_tui.hooks.context import project_for, safe_name
from cortex_tui.hooks.events import HookEvent, message_text, parse_event
from cortex_tui.hooks.logs import hook_logger
from cortex_tui.hooks.output import CLAUDE_CONTEXT_EVENTS, render

if TYPE_CHECKING:
    from cortex_tui.config import Settings
    from cortex_tui.engine.local import LocalEngine

CLAUDE_CONTEXT_CAP = 10_000
CONTEXT_BLOCK_TAG = "<cortex_memories>"


class HookTimeout(Exception):
    pass


def run_hook(
    kind: str, stdin: TextIO, stdout: TextIO, *, strict: bool = False, text_format: bool = False
) -> int:
    from cortex_tui.config import default_home, load_settings

    started = time.perf_counter()
    log = hook_logger(default_home())
    try:
        settings = load_settings()
        event = parse_event(stdin.read())
        work: Callable[[], str] = (
            (lambda: _pre(event, settings, text_format))
            if kind == "pre"
            else (lambda: _post(event, settings, log))
        )
        cap = settings.hooks.pre_timeout if kind == "pre" else settings.hooks.post_timeout
        output = _within(cap, work)
    except Exception as exc:
        if strict:
            raise
        log.warning(
            "%s hook failed after %.0f ms: %s: %s",
            kind,
            (time.perf_counter() - started) * 1000,
            type(exc).__name__,
            exc,
        )
        return 0
    if output:
        stdout.write(output + "\n")
    stdout.flush()
    log.info(
        "%s hook done in %.0f ms (%d chars out)",
        kind,
        (time.perf_counter() - started) * 1000,
        len(output),
    )
    return 0


def _within(seconds: float, work: Callable[[], str]) -> str:
    """Run `work` with a hard wall-clock cap; past it the hook gives up (prints nothing).

    The worker thread cannot be killed, so the caller exits the process right after a
    timeout (see `hook_main`): its store lock and files are released by the OS, and an
    unfinished capture stays in the spool for the next run.
    """
    result: list[str] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(work())
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise HookTimeout(f"gave up after {seconds:.1f} s (hooks.pre_timeout/post_timeout)")
    if failure:
        raise failure[0]
    return result[0] if result else ""


def _open_engine(settings: Settings) -> LocalEngine:
    from cortex_tui.engine.open import open_engine

    return open_engine(settings)


def _pre(event: HookEvent, settings: Settings, text_format: bool) -> str:
    if event.caller == "claude" and event.event not in CLAUDE_CONTEXT_EVENTS:
        return ""
    prompt = event.prompt.strip()
    if event.caller == "claude" and event.event == "SessionStart":
        if event.source not in ("compact", "resume"):
            return ""
        prompt = _last_user_prompt(event.transcript_path)
    if len(prompt) < settings.hooks.min_prompt_chars or CONTEXT_BLOCK_TAG in prompt:
        return ""
    from cortex_tui.recall.request import RecallRequest

    engine = _open_engine(settings)
    try:
        response = engine.recall(
            RecallRequest(
                query=prompt[: settings.hooks.max_query_chars],
                project=project_for(event.cwd),
                max_chars=CLAUDE_CONTEXT_CAP - 200,
                rerank_budget_ms=settings.recall.rerank_budget_ms_hook,
            )
        )
    finally:
        engine.close()
    return render(event, response.context, text_format)


def _last_user_prompt(transcript_path: str | None) -> str:
    if not transcript_path:
        return ""
    from cortex_tui.capture.transcript import read_transcript_turns

    turns, _ = read_transcript_turns(transcript_path)
    users = [t.text for t in turns if t.role == "user"]
    return users[-1] if users else ""


def _post(event: HookEvent, settings: Settings, log: logging.Logger) -> str:
    if event.caller == "claude" and (event.stop_hook_active or event.agent_id):
        return ""
    home = settings.home
    spool = Spool(home / "spool")
    session = safe_name(event.session_id)
    text, new_offset = _turn_text(event, home, session)
    if text.strip():
        key = turn_key(event.session_id, text)
        entry = {
            "key": key,
            "text": text,
            "project": project_for(event.cwd),
            "session_id": event.session_id,
            "at": time.time(),
        }
        if spool.append(entry):
            log.info("spooled turn %s of session %s (%d chars)", key[:8], session, len(text))
    if new_offset is not None:
        Offsets(home / "spool" / "offsets").set(session, new_offset)
    pending = spool.pending()
    if not pending:
        return ""
    engine = _open_engine(settings)
    try:
        for item in pending:
            report = engine.capture(
                item["text"],
                project=item.get("project"),
                session_id=item.get("session_id"),
                source="hook",
            )
            spool.mark_done(item["key"])
            log.info(
                "captured turn %s: %s",
                item["key"][:8],
                "; ".join(o.describe()[:80] for o in report.outcomes) or "nothing durable",
            )
    finally:
        engine.close()
    return ""


def _turn_text(event: HookEvent, home: Path, session: str) -> tuple[str, int | None]:
    """The part of the conversation not captured yet, and the transcript offset after it."""
    if event.caller == "plain":
        return event.prompt, None
    if event.caller == "openclaw":
        return _last_openclaw_turn(event), None
    if event.transcript_path and Path(event.transcript_path).is_file():
        from cortex_tui.capture.transcript import conversation_text, read_transcript_turns

        offsets = Offsets(home / "spool" / "offsets")
        turns, offset = read_transcript_turns(event.transcript_path, offsets.get(session))
        if turns:
            return conversation_text(turns), offset
        if event.last_assistant_message:
            return f"Assistant: {event.last_assistant_message}", offset
        return "", offset
    if event.last_assistant_message:
        return f"Assistant: {event.last_assistant_message}", None
    return "", None


def _last_openclaw_turn(event: HookEvent) -> str:
    messages = event.messages
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    lines = []
    for message in messages[last_user:]:
        role = str(message.get("role", ""))
        if role in ("user", "assistant"):
            text = message_text(message).strip()
            if text:
                lines.append(f"{role.capitalize()}: {text}")
    return "\n\n".join(lines)


def hook_main(argv: list[str]) -> int:
    """Entry for `cortex-tui --hook pre|post [--format json|text] [--strict]`."""
    import argparse

    parser = argparse.ArgumentParser(prog="cortex-tui --hook")
    parser.add_argument("--hook", choices=["pre", "post"], required=True)
    parser.add_argument("--format", choices=["json", "text"], default="json")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--home")
    try:
        args, _unknown = parser.parse_known_args(argv)
    except SystemExit:
        os._exit(0)  # argparse exits 2 on a bad argument: exit 2 would block the agent
    if args.home:
        os.environ["CORTEX_HOME"] = args.home
    try:
        code = run_hook(
            args.hook, sys.stdin, sys.stdout, strict=args.strict, text_format=args.format == "text"
        )
    except Exception:
        if args.strict:
            raise
        code = 0
    sys.stdout.flush()
    # Leave at once: a worker past its wall-clock cap must not hold the agent up.
    os._exit(code)
