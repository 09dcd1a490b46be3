"""Replaying a repository's real sessions as Claude Code fires its hooks, then asking what
a later session would.

A repository's sessions replay into one home and one git project, in corpus order, as
the agent runs them: SessionStart (`startup`) when a session opens, UserPromptSubmit once
the prompt is in the transcript, SessionStart (`compact`) where the transcript compacts,
and Stop with the reply's text once the turn is written to its end — no Stop for a turn
the person interrupted. Every hook is the real `--hook pre` or `--hook post` as a
subprocess; the first starts the service, which captures in the background. After each
session the replay waits until the spool is empty and stops the service, as the next
session comes later. Then `ask` opens new sessions in the same project (SessionStart,
then UserPromptSubmit) and reads what each was given.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from cortex_tui.agent_turn.agents.claude_code.transcript import turns_in, typed_prompt
from cortex_tui.clients import local_service
from cortex_tui.clock import system_clock
from cortex_tui.config import Settings
from cortex_tui.engine.open import open_engine
from cortex_tui.errors import ServiceUnreachableError
from cortex_tui.eval.sessions_dataset import Session
from cortex_tui.given.log import GivenLog
from cortex_tui.given.record import GivenRecord
from cortex_tui.given.segments import FOLDER
from cortex_tui.models import Memory, MemoryStatus
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import MemoryFilter
from cortex_tui.untrusted.text import decode_bytes

HOOK_SECONDS = 120.0
DRAIN_SECONDS = 1800.0
"""Longest wait for the service to capture a session's last turns."""
KEPT_ENV = ("PATH", "HOME", "LANG", "TMPDIR")
"""What the hooks inherit of this process's environment (not its `CORTEX_*` settings:
the replay's settings are the variant's, given whole)."""
SECTIONS_NOT_REPLAYED = frozenset({"store"})
"""The replay has a store of its own."""
INTERRUPTED = "[Request interrupted by user"
"""How Claude Code writes a turn the person stopped; it fires no Stop for it."""

log = logging.getLogger(__name__)

Advance = Callable[[int, int], None]
"""(turns done, turns) as the replay goes."""


@dataclass
class Replayed:
    """What the store holds after a session's replay (and the sessions before it)."""

    prompts: int
    current: list[Memory]
    """Memories a later session would recall (current, active)."""
    versions: list[Memory]
    """Every version the store ever held, for explaining where a statement went."""
    hook_failures: list[str]
    seconds: float
    own: list[Memory] = field(default_factory=list)
    """The current memories this session's capture stored (an earlier session's,
    reinforced here, stay that session's)."""


@dataclass(frozen=True)
class ReplayTurn:
    """A turn as the agent writes it: the lines before the first prompt (the first turn
    only), the prompt the person typed, and its lines with the reply's."""

    preamble: list[bytes]
    prompt: str
    lines: list[bytes]


@dataclass(frozen=True)
class Asked:
    """What a new session was given for one prompt: the session-start block, the
    prompt's block, and any hook that failed on the way."""

    start: str
    block: str
    hook_failures: list[str]


def turns_of(lines: list[bytes]) -> list[ReplayTurn]:
    """The transcript cut where the person typed: one turn per typed prompt."""
    starts = [i for i, line in enumerate(lines) if typed_prompt(line) is not None]
    ends = [*starts[1:], len(lines)]
    return [
        ReplayTurn(
            lines[:start] if n == 0 else [], typed_prompt(lines[start]) or "", lines[start:end]
        )
        for n, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]


def in_home(settings: Settings, home: Path) -> Settings:
    """`settings` for a replay's fresh home; the models stay where the caller's are
    (the replay's home has none)."""
    models = settings.embedder.model_copy(update={"models_dir": settings.models_path})
    return settings.model_copy(update={"embedder": models, "home": home})


def settings_env(settings: Settings) -> dict[str, str]:
    """The settings that differ from the defaults, as whole sections in `CORTEX_*`
    variables (a section's JSON is what pydantic-settings reads from one)."""
    defaults = Settings.model_construct().model_dump(mode="json")
    chosen = settings.model_dump(mode="json")
    env = {}
    for section, value in chosen.items():
        replayed = isinstance(value, dict) and section not in SECTIONS_NOT_REPLAYED
        if replayed and value != defaults.get(section):
            env[f"CORTEX_{section.upper()}"] = json.dumps(value)
    return env


class ClaudeCodeProject:
    """One repository as Claude Code meets it: a home of its own, a git project named
    as the repository, and a folder of transcripts. `settings`: all but where the store
    is (the replay's home holds it)."""

    def __init__(self, folder: Path, repo: str, settings: Settings) -> None:
        self.home = folder / "home"
        self.project = _project(folder, repo)
        self.transcripts = folder / "claude"
        self.transcripts.mkdir(parents=True)
        self.settings = in_home(settings, self.home)
        env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
        env.update({"CORTEX_HOME": str(self.home), **settings_env(self.settings)})
        self._env = env

    def replay(self, session: Session, advance: Advance) -> Replayed:
        """Replay `session`, let the service capture it, and read what the store holds."""
        started = time.perf_counter()
        transcript = self.transcripts / f"{session.name}.jsonl"
        turns = turns_of(session.transcript_lines())
        failures: list[str] = []
        try:
            failures += self._pre("SessionStart", session.name, transcript, source="startup")[1]
            with transcript.open("ab") as out:
                for n, turn in enumerate(turns, 1):
                    failures += self._turn(out, turn, session.name, transcript)
                    advance(n, len(turns))
            _wait_for_capture(self.home)
        finally:
            self.stop()
        current, versions = self.kept()
        own = [memory for memory in current if memory.session_id == session.name]
        seconds = time.perf_counter() - started
        return Replayed(len(turns), current, versions, failures, seconds, own)

    def ask(self, session_id: str, prompt: str) -> Asked:
        """Open a new session and type `prompt` in it; nothing of it is captured (no
        Stop: the replay measures what is given, not what the probe would add)."""
        transcript = self.transcripts / f"{session_id}.jsonl"
        start, failures = self._pre("SessionStart", session_id, transcript, source="startup")
        with transcript.open("ab") as out:
            _write(out, [json.dumps(_typed_line(session_id, prompt)).encode()])
        block, more = self._pre("UserPromptSubmit", session_id, transcript, prompt=prompt)
        return Asked(start, block, failures + more)

    def stop(self) -> None:
        local_service.stop(self.home, wait=120.0)

    def kept(self) -> tuple[list[Memory], list[Memory]]:
        """The current memories, and every version the store ever held."""
        with closing(open_engine(self.settings)) as engine:
            current = list(engine.store.iter_memories(MemoryFilter()))
            every = MemoryFilter(current_only=False, statuses=list(MemoryStatus))
            versions = list(engine.store.iter_memories(every))
        return current, versions

    def given(self, session_id: str) -> list[GivenRecord]:
        """What the service recorded giving `session_id`, newest first."""
        folder = self.home / FOLDER
        records = GivenLog(folder, self.settings.injections, system_clock)
        return records.newest(session=session_id, limit=20)

    def _turn(self, out: BinaryIO, turn: ReplayTurn, session: str, transcript: Path) -> list[str]:
        """One turn: the prompt written, then UserPromptSubmit; the rest written line by
        line (a compaction fires SessionStart `compact`); Stop unless interrupted."""
        _write(out, [*turn.preamble, turn.lines[0]])
        failures = self._pre("UserPromptSubmit", session, transcript, prompt=turn.prompt)[1]
        for line in turn.lines[1:]:
            _write(out, [line])
            if _compacted(line):
                failures += self._pre("SessionStart", session, transcript, source="compact")[1]
        if _interrupted(turn.lines):
            return failures
        reply = [t.text for t in turns_in(turn.lines) if t.role == "assistant"]
        stop = _event("Stop", session, self.project, transcript)
        if reply:
            stop["last_assistant_message"] = reply[-1]
        return failures + self._hook("post", stop)[1]

    def _pre(
        self, kind: str, session: str, transcript: Path, **fields: str
    ) -> tuple[str, list[str]]:
        """The context a pre hook gave (its `additionalContext`), and its failure."""
        output, failures = self._hook(
            "pre", {**_event(kind, session, self.project, transcript), **fields}
        )
        if not output.strip():
            return "", failures
        try:
            answer = json.loads(output)
            return str(answer["hookSpecificOutput"]["additionalContext"]), failures
        except (ValueError, KeyError, TypeError):
            return "", [*failures, f"pre hook printed what Claude Code ignores: {output[:200]}"]

    def _hook(self, kind: str, event: Mapping[str, object]) -> tuple[str, list[str]]:
        """Run one hook as the agent does: its output, and what went wrong (a hook that
        fails says nothing to the agent, so the replay reads it from the exit code)."""
        done = subprocess.run(
            [sys.executable, "-m", "cortex_tui", "--hook", kind],
            input=json.dumps(event).encode(),
            capture_output=True,
            env=dict(self._env),
            timeout=HOOK_SECONDS,
            check=False,
        )
        if done.returncode != 0:
            return "", [f"{kind} hook exited {done.returncode}: {done.stderr.decode()[-300:]}"]
        return done.stdout.decode(), []


def _project(folder: Path, repo: str) -> Path:
    """A git repository named as the session's, with one commit: the project's key."""
    project = folder / repo.rpartition("/")[2]
    project.mkdir(parents=True)
    git = ["git", "-C", str(project), "-c", "user.name=eval", "-c", "user.email=eval@localhost"]
    subprocess.run([*git, "init", "-q"], check=True, capture_output=True)
    (project / "README.md").write_text(f"{repo}\n")
    subprocess.run([*git, "add", "README.md"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", "start"], check=True, capture_output=True)
    return project


def _event(kind: str, session: str, project: Path, transcript: Path) -> dict[str, object]:
    return {
        "hook_event_name": kind,
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(project),
    }


def _typed_line(session: str, prompt: str) -> dict[str, object]:
    """A prompt as Claude Code writes it to the transcript."""
    return {
        "type": "user",
        "sessionId": session,
        "isSidechain": False,
        "userType": "external",
        "message": {"role": "user", "content": prompt},
    }


def _line_of(raw: bytes) -> dict[str, object]:
    try:
        line = json.loads(decode_bytes(raw))
    except ValueError:
        return {}
    return line if isinstance(line, dict) else {}


def _compacted(raw: bytes) -> bool:
    """The transcript's compacted conversation starts here (Claude Code then fires
    SessionStart with source `compact`)."""
    return b"isCompactSummary" in raw and _line_of(raw).get("isCompactSummary") is True


def _interrupted(lines: list[bytes]) -> bool:
    """The person stopped the turn before its end (Claude Code writes it as their line;
    the transcript reader skips it, as no one typed it)."""
    return any(
        INTERRUPTED.encode() in raw and _user_text(raw).startswith(INTERRUPTED) for raw in lines
    )


def _user_text(raw: bytes) -> str:
    """A person's line's text, plain or as the first of its text blocks ("" otherwise)."""
    line = _line_of(raw)
    message = line.get("message")
    if line.get("type") != "user" or not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, list):
        texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = texts[0] if texts else ""
    return content if isinstance(content, str) else ""


def _write(out: BinaryIO, lines: list[bytes]) -> None:
    for line in lines:
        out.write(line + b"\n")
    out.flush()


def _wait_for_capture(home: Path) -> None:
    """Until the service has captured every spooled turn (it drains in the background)."""
    spool = Spool(home / "spool", log)
    deadline = time.monotonic() + DRAIN_SECONDS
    while spool.pending():
        if time.monotonic() > deadline:
            raise ServiceUnreachableError(
                f"the replay's service did not capture the session in {DRAIN_SECONDS:.0f} s; "
                f"its log is in {home / 'logs'}"
            )
        if local_service.status(home) is None:
            if not local_service.start(home, wait=60.0):
                refusal = local_service.start_refusal(home)
                raise ServiceUnreachableError(
                    f"the replay's service does not start: {refusal or 'no answer in 60 s'}"
                )
        else:
            with suppress(local_service.ServiceUnavailable):
                local_service.call_raw(home, "POST", "/v1/spool/drain", timeout=5.0)
        time.sleep(1.0)
