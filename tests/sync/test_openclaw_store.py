"""`sync` over an OpenClaw session store (`openclaw-agent.sqlite`): each session's new
exchanges spooled once, shared with what the plugin's capture handed over. The store is
written here in OpenClaw 2026.9's layout (the real OpenClaw writing one is in
tests/agents/test_openclaw.py)."""

from __future__ import annotations

import json
import logging
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import zstandard

from cortex_tui.agent_turn.events import parse_event
from cortex_tui.agent_turn.spooling import spool_turn
from cortex_tui.spool.durable import Spool
from cortex_tui.sync.files import database_of, walk
from cortex_tui.sync.run import sync_paths
from tests.sync.test_sync_surfaces import Lines, start_watch

LOG = logging.getLogger("test")
SCHEMA = """
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq)
)
"""


class Store:
    """An agent's session store, written the way OpenClaw writes it."""

    def __init__(self, root: Path) -> None:
        self.path = root / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        self.path.parent.mkdir(parents=True)
        with sqlite3.connect(self.path) as db:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(SCHEMA)
        self.seqs: dict[str, int] = {}

    def event(self, session: str, event: dict[str, Any], *, compressed: bool = False) -> None:
        seq = self.seqs.get(session, -1) + 1
        self.seqs[session] = seq
        text = json.dumps(event)
        row: tuple[Any, ...] = (session, seq, text, 0, None, len(text.encode()))
        if compressed:
            packed = zstandard.ZstdCompressor(level=1).compress(text.encode())
            row = (session, seq, None, 0, packed, len(text.encode()))
        with sqlite3.connect(self.path) as db:
            db.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, NULL)", row)

    def start(self, session: str, cwd: Path) -> None:
        self.event(session, {"type": "session", "version": 4, "id": session, "cwd": str(cwd)})
        self.event(session, {"type": "model_change", "provider": "p", "modelId": "m"})

    def said(self, session: str, role: str, text: str, *, compressed: bool = False) -> None:
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        message = {"role": role, "content": content}
        self.event(session, {"type": "message", "message": message}, compressed=compressed)


def spooled(home: Path) -> list[dict[str, Any]]:
    return Spool(home / "spool", LOG).pending()


def test_each_sessions_exchanges_are_spooled_once_with_the_agents_project(
    tmp_path: Path,
) -> None:
    home, store = tmp_path / "cortex", Store(tmp_path / ".openclaw")
    harbor = tmp_path / "harbor"
    subprocess.run(["git", "init", "-q", str(harbor)], check=True)
    store.start("s1", harbor)
    store.said("s1", "user", "From now on harbor deploys with Argo CD.")
    store.said("s1", "assistant", "Noted.")
    store.event("s1", {"type": "message", "message": {"role": "toolResult", "content": []}})
    store.start("s2", harbor)
    store.said("s2", "user", "Kwame owns the Argo CD setup.")

    first = sync_paths([tmp_path / ".openclaw"], home)
    assert [c.describe() for c in first.changes] == [f"{store.path}: 2 new exchanges"]
    entries = spooled(home)
    assert [(e["session_id"], e["text"]) for e in entries] == [
        ("s1", "User: From now on harbor deploys with Argo CD.\n\nAssistant: Noted."),
        ("s2", "User: Kwame owns the Argo CD setup."),
    ]
    assert {e["project"] for e in entries} == {"harbor"}

    again = sync_paths([tmp_path / ".openclaw"], home)
    assert again.changes == [] and len(spooled(home)) == 2
    store.said("s1", "user", "Never deploy harbor on a Friday.")
    later = sync_paths([tmp_path / ".openclaw"], home)
    assert later.changes[0].turns == 1
    assert spooled(home)[-1]["text"] == "User: Never deploy harbor on a Friday."


def test_a_compressed_event_is_read(tmp_path: Path) -> None:
    home, store = tmp_path / "cortex", Store(tmp_path / "oc")
    store.start("s1", tmp_path)
    long_reply = "The harbor release checklist: " + "check the dashboards, " * 80
    store.said("s1", "user", "What is on the harbor release checklist?")
    store.said("s1", "assistant", long_reply, compressed=True)
    sync_paths([store.path], home)
    [entry] = spooled(home)
    assert entry["text"].endswith(long_reply.strip())


def test_an_event_this_python_cannot_decode_is_counted_not_lost_silently(
    tmp_path: Path,
) -> None:
    home, store = tmp_path / "cortex", Store(tmp_path / "oc")
    store.start("s1", tmp_path)
    with sqlite3.connect(store.path) as db:
        db.execute(
            "INSERT INTO transcript_events VALUES ('s1', 2, NULL, 0, ?, 10, NULL)",
            (b"not zstd at all",),
        )
    store.seqs["s1"] = 2
    store.said("s1", "user", "Harbor's staging cluster is in eu-west-1.")
    report = sync_paths([store.path], home)
    assert report.skipped == [
        f"skipped 1 events of {store.path} that do not decode here (OpenClaw's binary "
        f"JSON needs SQLite 3.45 or later; this Python has {sqlite3.sqlite_version}); "
        "the rest was read"
    ]
    assert [e["text"] for e in spooled(home)] == ["User: Harbor's staging cluster is in eu-west-1."]
    assert sync_paths([store.path], home).skipped == []  # said once, not on every pass


def agent_end(home: Path, session: str, messages: list[dict[str, Any]]) -> None:
    """The plugin's hand-over of a turn: the post hook with OpenClaw's history."""
    event = {"success": True, "sessionId": session, "messages": messages}
    spool_turn(parse_event(json.dumps(event)), home, LOG)


def test_sync_and_the_plugin_never_take_the_same_turn(tmp_path: Path) -> None:
    home, store = tmp_path / "cortex", Store(tmp_path / "oc")
    turns = [
        ("We deploy harbor with Argo CD.", "Noted."),
        ("Kwame owns the Argo CD setup.", "Got it."),
        ("Never deploy on a Friday.", "Understood."),
    ]
    history: list[dict[str, Any]] = []
    store.start("s1", tmp_path)
    for prompt, reply in turns[:2]:  # the plugin hands over the first two turns
        store.said("s1", "user", prompt)
        store.said("s1", "assistant", reply)
        history += [{"role": "user", "content": prompt}, {"role": "assistant", "content": reply}]
        agent_end(home, "s1", history)
    prompt, reply = turns[2]  # the third is in the store; its agent_end comes later
    store.said("s1", "user", prompt)
    store.said("s1", "assistant", reply)
    sync_paths([store.path], home)
    history += [{"role": "user", "content": prompt}, {"role": "assistant", "content": reply}]
    agent_end(home, "s1", history)
    assert [e["text"].split("\n")[0] for e in spooled(home)] == [
        "User: We deploy harbor with Argo CD.",
        "User: Kwame owns the Argo CD setup.",
        "User: Never deploy on a Friday.",
    ]
    sync_paths([store.path], home)
    assert len(spooled(home)) == 3


def test_a_file_that_is_not_a_session_store_is_skipped_with_the_reason(tmp_path: Path) -> None:
    fake = tmp_path / "openclaw-agent.sqlite"
    fake.write_text("not a database")
    report = sync_paths([fake], tmp_path / "cortex")
    [line] = report.skipped
    assert line.startswith(f"skipped {fake}: cannot read OpenClaw's session store: ")


def test_a_folder_walk_finds_the_store_and_a_change_to_its_log_is_a_change_to_it(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "oc")
    assert walk(tmp_path / "oc") == [(store.path, "openclaw")]
    wal = store.path.with_name(store.path.name + "-wal")
    assert database_of(wal) == store.path
    assert database_of(tmp_path / "notes.md") == tmp_path / "notes.md"


def test_an_openclaw_session_file_of_the_jsonl_era_reads_like_a_transcript(
    tmp_path: Path,
) -> None:
    sessions = tmp_path / "oc" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 3, "id": "old-1", "cwd": str(tmp_path)},
        {"type": "model_change", "provider": "p", "modelId": "m", "id": "a"},
        {"type": "message", "id": "b", "message": {"role": "user", "content": "Use pnpm."}},
        {
            "type": "message",
            "id": "c",
            "message": {"role": "toolResult", "content": [{"type": "text", "text": "ok"}]},
        },
        {
            "type": "message",
            "id": "d",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Will do."}]},
        },
        {"type": "compaction", "id": "e", "summary": "The user prefers pnpm."},
    ]
    (sessions / "old-1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    home = tmp_path / "cortex"
    sync_paths([tmp_path / "oc"], home)
    [entry] = spooled(home)
    assert (entry["session_id"], entry["text"]) == (
        "old-1",
        "User: Use pnpm.\n\nAssistant: Will do.",
    )


def test_watch_takes_in_each_turn_openclaw_writes(tmp_path: Path) -> None:
    store = Store(tmp_path / "oc")
    store.start("s1", tmp_path)
    store.said("s1", "user", "Harbor's staging cluster is in eu-west-1.")
    process = start_watch(tmp_path / "cortex", tmp_path / "oc")
    lines = Lines(process)
    try:
        lines.expect("openclaw-agent.sqlite: 1 new exchange")
        lines.expect("watching")
        store.said("s1", "user", "Never deploy harbor on a Friday.")  # OpenClaw's next turn
        lines.expect("openclaw-agent.sqlite: 1 new exchange")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
