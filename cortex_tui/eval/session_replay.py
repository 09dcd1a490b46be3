"""Replaying a real session as Claude Code runs it, through the real hooks.

The session's transcript is written out turn by turn into a fresh home, as the agent
writes it; around each turn the real hooks run as subprocesses, as Claude Code runs them
(`--hook pre` on the prompt, `--hook post` on Stop), in a git project of the session's
own. The first hook starts the service, which captures in the background; the replay
waits until the spool is empty, stops the service and reads what the store kept.
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
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cortex_tui.capture.transcript import typed_prompt
from cortex_tui.config import Settings
from cortex_tui.engine.open import open_engine
from cortex_tui.errors import ServiceUnreachableError
from cortex_tui.eval.sessions_dataset import Session
from cortex_tui.link import local_service
from cortex_tui.link.spool import Spool
from cortex_tui.models import Memory, MemoryStatus
from cortex_tui.store.base import MemoryFilter

HOOK_SECONDS = 120.0
DRAIN_SECONDS = 1800.0
"""Longest wait for the service to capture a session's last turns."""
KEPT_ENV = ("PATH", "HOME", "LANG", "TMPDIR")
"""What the hooks inherit of this process's environment (not its `CORTEX_*` settings:
the replay's settings are the variant's, given whole)."""
SECTIONS_NOT_REPLAYED = frozenset({"store"})
"""The replay has a store of its own."""

log = logging.getLogger(__name__)

Advance = Callable[[int, int], None]
"""(turns done, turns) as the replay goes."""


@dataclass
class Replayed:
    """What the store holds after a session's replay."""

    prompts: int
    current: list[Memory]
    """Memories a later session would recall (current, active)."""
    versions: list[Memory]
    """Every version the store ever held, for explaining where a statement went."""
    hook_failures: list[str]
    seconds: float


@dataclass(frozen=True)
class ReplayTurn:
    """A turn as the agent writes it: the lines before the first prompt (the first turn
    only), the prompt the person typed, and its lines with the reply's."""

    preamble: list[bytes]
    prompt: str
    lines: list[bytes]


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


def replay_session(
    session: Session, settings: Settings, folder: Path, advance: Advance
) -> Replayed:
    """Replay `session` in `folder` (a fresh home, project and transcript) with
    `settings` (all but where the store is)."""
    started = time.perf_counter()
    home, project = folder / "home", _project(folder, session)
    transcript = folder / "claude" / f"{session.name}.jsonl"
    transcript.parent.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
    settings = in_home(settings, home)
    env.update({"CORTEX_HOME": str(home), **settings_env(settings)})
    turns = turns_of(session.transcript_lines())
    failures: list[str] = []
    try:
        with transcript.open("ab") as out:
            for n, turn in enumerate(turns, 1):
                _write(out, turn.preamble)
                asked = _event("UserPromptSubmit", session, project, transcript, turn.prompt)
                failures += _hook("pre", asked, env)
                _write(out, turn.lines)
                failures += _hook("post", _event("Stop", session, project, transcript), env)
                advance(n, len(turns))
        _wait_for_capture(home)
    finally:
        local_service.stop(home, wait=120.0)
    current, versions = _kept(settings)
    return Replayed(len(turns), current, versions, failures, time.perf_counter() - started)


def _project(folder: Path, session: Session) -> Path:
    """A git repository named as the session's, with one commit: the project's key."""
    project = folder / session.source.repo.rpartition("/")[2]
    project.mkdir(parents=True)
    git = ["git", "-C", str(project), "-c", "user.name=eval", "-c", "user.email=eval@localhost"]
    subprocess.run([*git, "init", "-q"], check=True, capture_output=True)
    (project / "README.md").write_text(f"{session.source.repo}\n")
    subprocess.run([*git, "add", "README.md"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", "start"], check=True, capture_output=True)
    return project


def _event(
    kind: str, session: Session, project: Path, transcript: Path, prompt: str | None = None
) -> str:
    event = {
        "hook_event_name": kind,
        "session_id": session.name,
        "transcript_path": str(transcript),
        "cwd": str(project),
    }
    return json.dumps(event if prompt is None else {**event, "prompt": prompt})


def _write(out: BinaryIO, lines: list[bytes]) -> None:
    for line in lines:
        out.write(line + b"\n")
    out.flush()


def _hook(kind: str, event: str, env: Mapping[str, str]) -> list[str]:
    """Run one hook as the agent does; what went wrong, if anything (a hook that fails
    says nothing to the agent, so the replay reads it from the exit code)."""
    done = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--hook", kind],
        input=event.encode(),
        capture_output=True,
        env=dict(env),
        timeout=HOOK_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        return [f"{kind} hook exited {done.returncode}: {done.stderr.decode()[-300:]}"]
    return []


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


def _kept(settings: Settings) -> tuple[list[Memory], list[Memory]]:
    with closing(open_engine(settings)) as engine:
        current = list(engine.store.iter_memories(MemoryFilter()))
        every = MemoryFilter(current_only=False, statuses=list(MemoryStatus))
        versions = list(engine.store.iter_memories(every))
    return current, versions
