"""`sync` fills the turn archive: a person takes in months of past sessions at once, each
turn kept as the next turn of its session, dated as it was said (not as synced), once,
and after the privacy step. Claude Code's transcripts through `sync --no-daemon` (this
process captures), an OpenClaw session store through the service (its batch capture)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.privacy.leaks import files_holding, payloads_holding
from tests.server.conftest import start_service, stop_service
from tests.sync.test_openclaw_store import Store
from tests.sync.test_sync_surfaces import cortex

SECRET = "sk-Zx8Qm2Lk9Rt4Wv7Np1Bc3Df6Gh0Jk5Lm8Nq2Rs4Tu7Vw9XyA"  # an OpenAI API key's shape
SAID = [
    ("user", "2026-03-02T09:15:00Z", "The review app runs on port 6543 for now, until the move."),
    ("assistant", "2026-03-02T09:16:30Z", "Noted: the review app stays on port 6543 for now."),
    ("user", "2026-04-17T16:40:00Z", f"Use the key {SECRET} for the staging billing sandbox."),
    ("assistant", "2026-04-17T16:41:00Z", "I set the staging billing sandbox up to use that key."),
]
LATER = [
    ("user", "2026-05-01T08:00:00Z", "The move is done, so the review app moved to port 7000."),
    ("assistant", "2026-05-01T08:02:00Z", "Good to know: the review app is on port 7000 now."),
]


def _line(n: int, role: str, text: str, at: str, cwd: Path) -> str:
    """A transcript line as Claude Code writes it: its session, folder and time."""
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message["id"] = f"msg_{n}"
    line = {"type": role, "message": message, "uuid": f"u{n}", "cwd": str(cwd)}
    return json.dumps({**line, "sessionId": "sess-1", "timestamp": at})


def _transcript(tmp_path: Path, said: list[tuple[str, str, str]]) -> Path:
    repo = tmp_path / "atlas"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    path = tmp_path / "projects" / "sess-1.jsonl"
    path.parent.mkdir(exist_ok=True)
    lines = [_line(n, role, text, at, repo) for n, (role, at, text) in enumerate(said)]
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


def _shown(cli: Cli, session: str) -> list[tuple[int | None, str | None, str, str]]:
    """The session's archived messages: turn, speaker, when (to the minute) and text."""
    shown = cli("sessions", "show", session, "--json")
    assert shown.code == 0, shown.err
    return [(m["turn"], m["speaker"], m["said_at"][:16], m["text"]) for m in json.loads(shown.out)]


def test_a_synced_transcript_is_archived_as_its_session_on_the_days_it_was_said(
    cli: Cli, tmp_path: Path
) -> None:
    transcript = _transcript(tmp_path, SAID)
    synced = cli("sync", str(transcript.parent))
    assert synced.code == 0, synced.err
    assert synced.out.splitlines()[1] == f"{transcript}: 2 new exchanges"

    (listed,) = cli("sessions").out.splitlines()
    assert listed == (
        f"sess-1  2026-03-02 09:15 – 2026-04-17  2 turns, 4 messages  sync:{transcript}  atlas"
    )
    messages = _shown(cli, "sess-1")
    assert [m[:3] for m in messages] == [
        (0, "user", "2026-03-02T09:15"),
        (0, "assistant", "2026-03-02T09:15"),
        (1, "user", "2026-04-17T16:40"),
        (1, "assistant", "2026-04-17T16:40"),
    ]
    assert messages[0][3] == SAID[0][2] and messages[3][3] == SAID[3][2]
    assert "staging billing sandbox" in messages[2][3]  # said, less the key
    text = cli("sessions", "show", "sess-1").out
    assert "2026-03-02 09:15  turn 0  user" in text and "2026-04-17 16:40  turn 1  user" in text

    assert SECRET not in text and SECRET not in cli("sessions", "search", "billing key").out
    assert payloads_holding(cli.home, [SECRET]) == {}
    assert files_holding(cli.home, [SECRET]) == {}


def test_syncing_again_archives_nothing_twice(cli: Cli, tmp_path: Path) -> None:
    transcript = _transcript(tmp_path, SAID)
    assert cli("sync", str(transcript)).code == 0
    first = _shown(cli, "sess-1")
    again = cli("sync", str(transcript))
    assert again.out.splitlines()[0] == "synced 1 files: 0 changed, 1 unchanged"
    # What sync took in forgotten (its state and the offsets it shares with the hook):
    # every exchange is read and captured again, and the archive knows each message.
    shutil.rmtree(cli.home / "sync")
    shutil.rmtree(cli.home / "spool" / "offsets")
    anew = cli("sync", str(transcript))
    assert anew.out.splitlines()[1] == f"{transcript}: 2 new exchanges"
    assert _shown(cli, "sess-1") == first

    _transcript(tmp_path, SAID + LATER)  # the session went on
    cli("sync", str(transcript))
    assert _shown(cli, "sess-1") == [
        *first,
        (2, "user", "2026-05-01T08:00", LATER[0][2]),
        (2, "assistant", "2026-05-01T08:00", LATER[1][2]),
    ]


def _said(store: Store, session: str, role: str, text: str, **when: object) -> None:
    """A message event as OpenClaw 2026.9 writes one; `when`: the event's ISO
    `timestamp`, or (`ms`) only the message's own, in milliseconds."""
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    message: dict[str, Any] = {"role": role, "content": content}
    event: dict[str, Any] = {"type": "message", "id": f"{session}-{store.seqs[session]}"}
    if "ms" in when:
        message["timestamp"] = when["ms"]
    else:
        event["timestamp"] = when["at"]
    store.event(session, {**event, "message": message})


def test_a_synced_openclaw_store_is_archived_by_session_on_the_days_it_was_said(
    tmp_path: Path,
) -> None:
    home, store = tmp_path / "home", Store(tmp_path / ".openclaw")
    harbor = tmp_path / "harbor"
    subprocess.run(["git", "init", "-q", str(harbor)], check=True)
    store.start("s1", harbor)
    _said(store, "s1", "user", "Harbor deploys with Argo CD.", at="2026-02-10T10:00:00.000Z")
    _said(store, "s1", "assistant", "Noted: harbor uses Argo CD.", at="2026-02-10T10:01:00.000Z")
    token = f"The Argo CD admin token is {SECRET}, keep it handy."
    _said(store, "s1", "user", token, at="2026-02-12T15:30:00.000Z")
    store.start("s2", harbor)
    _said(store, "s2", "user", "Kwame owns the Argo CD setup for harbor.", ms=1_772_800_200_000)
    service = start_service(home)
    try:
        for _ in range(2):  # the second pass finds nothing new
            synced = cortex(home, "sync", str(tmp_path / ".openclaw"))
            assert synced.returncode == 0, synced.stderr
        assert synced.stdout.splitlines()[0] == "synced 1 files: 0 changed, 1 unchanged"
        listed = cortex(home, "sessions").stdout.splitlines()
        shown = [
            [
                (m["turn"], m["speaker"], m["said_at"][:16], m["project"])
                for m in json.loads(cortex(home, "sessions", "show", s, "--json").stdout)
            ]
            for s in ("s1", "s2")
        ]
        s1 = cortex(home, "sessions", "show", "s1").stdout
    finally:
        stop_service(home, service)
    assert [line.split("  ")[:3] for line in listed] == [
        ["s2", "2026-03-06 12:30", "1 turn, 1 message"],
        ["s1", "2026-02-10 10:00 – 2026-02-12", "2 turns, 3 messages"],
    ]
    assert shown == [
        [
            (0, "user", "2026-02-10T10:00", "harbor"),
            (0, "assistant", "2026-02-10T10:00", "harbor"),
            (1, "user", "2026-02-12T15:30", "harbor"),
        ],
        [(0, "user", "2026-03-06T12:30", "harbor")],
    ]
    assert "admin token" in s1 and SECRET not in s1
    assert payloads_holding(home, [SECRET]) == {}
