"""A home whose turn archive holds three sessions, captured through the engine as the hooks
capture turns, each turn at its own time, with the real embedded model (the archive's
search ranks with it). Made once a module; each test opens a copy (`copy_home`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cortex_tui.clock import frozen_clock
from cortex_tui.config import load_settings
from cortex_tui.embed.base import Embedder
from cortex_tui.engine.local import LocalEngine
from cortex_tui.engine.open import open_engine

START = datetime(2026, 5, 30, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
"""The clock of the engine a test opens: after every seeded turn."""

ATLAS = "7c1f2a9b-claude"
HARBOR = "b2d4e6f8-openclaw"
SCRATCH = "0a9e-scratch"

MARROWGLEN = (
    "Can you look at why the nightly import is slow? Maybe it is the Marrowglen fixture, "
    "the one that seeds forty thousand rows before each run."
)
PROFILED = (
    "I profiled the nightly import: most of the time goes to the index rebuild at the end, "
    "not the fixture. Dropping the secondary indexes before the load and rebuilding them "
    "once afterwards should cut it by half."
)
TURNS: tuple[tuple[str | None, str, int, str], ...] = (
    # project, session, minutes after START, the turn as the hooks hand it over
    (
        "atlas",
        ATLAS,
        0,
        "User: The staging host is kestrel-02 for now, we moved it last week.\n"
        "Assistant: Noted: staging runs on kestrel-02 until the migration is done.",
    ),
    ("atlas", ATLAS, 5, f"User: {MARROWGLEN}\nAssistant: {PROFILED}"),
    (
        "harbor",
        HARBOR,
        24 * 60,
        "User: In harbor we use pnpm, never npm; the lockfile is pnpm-lock.yaml.\n"
        "Assistant: Understood, I will run pnpm install and keep pnpm-lock.yaml in sync.",
    ),
    (
        None,
        SCRATCH,
        24 * 60 + 30,
        "User: Remind me what the [draft] tag means in our notes, please.\n"
        "Assistant: The [draft] tag marks notes nobody has reviewed yet.",
    ),
)


@dataclass
class SettableClock:
    at: datetime

    def __call__(self) -> datetime:
        return self.at


def seed_archive(home: Path, embedder: Embedder) -> None:
    """Capture `TURNS`, each at its time."""
    clock = SettableClock(START)
    engine = open_engine(load_settings(home), clock=clock, embedder=embedder)
    try:
        for project, session, minutes, text in TURNS:
            clock.at = START + timedelta(minutes=minutes)
            engine.capture(text, project=project, session_id=session)
    finally:
        engine.close()


def open_seeded(home: Path, embedder: Embedder) -> LocalEngine:
    return open_engine(load_settings(home), clock=frozen_clock(NOW), embedder=embedder)
