"""`sync` and `watch` as a user runs them: real subprocesses, the real watcher, the real
service (killed mid-sync, too). Every wait is bounded; none sleeps and hopes."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cortex_tui.bench.corpus import distinct_statements
from cortex_tui.clients import local_service
from cortex_tui.embed.hashing import HashingEmbedder
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.recall.request import RecallRequest
from cortex_tui.spool.durable import Spool
from cortex_tui.store.base import MemoryFilter
from tests.conftest import Cli, make_engine
from tests.server.conftest import service_env, start_service, stop_service

WAIT = 60.0


def wait_for(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


class Lines:
    """A subprocess's stdout and stderr, line by line, read without blocking the test."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        for stream in (process.stdout, process.stderr):
            threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self._queue.put(line.rstrip("\n"))

    def expect(self, fragment: str, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if fragment in line:
                    self.seen.remove(line)
                    return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line with {fragment!r} in {timeout:.0f} s: {self.seen}")
            with contextlib.suppress(queue.Empty):
                self.seen.append(self._queue.get(timeout=left))


def test_sync_prints_one_line_per_changed_file_and_json_on_request(
    cli: Cli, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# Rules\n- Never push to main directly.\n")
    (folder / "photo.md").write_bytes(b"\x00\x01binary")
    run = cli("sync", str(folder))
    assert run.code == 0, run.err
    assert run.out.splitlines() == [
        "synced 2 files: 1 changed, 0 unchanged; 1 change stored",
        f"{folder / 'MEMORY.md'}: 1 new",
        f"skipped {folder / 'photo.md'}: a binary file, not notes; "
        "leave it out of the synced paths",
    ]
    again = cli("sync", str(folder), "--json")
    assert again.code == 0, again.err
    report = json.loads(again.out)
    assert report["changes"] == [] and report["unchanged"] == 1 and report["stored"] is True
    listed = json.loads(cli("list", "--json").out)["memories"]
    assert [(m["content"], m["type"]) for m in listed] == [("Never push to main directly.", "rule")]
    missing = cli("sync", str(tmp_path / "nope.md"))
    assert missing.code != 0 and "Traceback" not in missing.err
    assert missing.err.strip() == (
        f"cortex-tui: error: {tmp_path / 'nope.md'} does not exist; give a notes file, "
        "a transcript or a folder"
    )


def start_watch(home: Path, folder: Path) -> subprocess.Popen[str]:
    """`cortex-tui watch FOLDER` in the foreground, on `home`, storing in-process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env.update({"CORTEX_DAEMON": "0", "CORTEX_EMBEDDER__KIND": "hashing", "CORTEX_HOME": str(home)})
    return subprocess.Popen(
        [sys.executable, "-m", "cortex_tui", "watch", str(folder)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def watcher(cli: Cli, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Lines, Path]]:
    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- The build server is called forge.\n")
    process = start_watch(cli.home, folder)
    lines = Lines(process)
    try:
        yield process, lines, folder
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def test_watch_takes_in_each_save_and_stops_cleanly_on_ctrl_c(
    watcher: tuple[subprocess.Popen[str], Lines, Path], cli: Cli
) -> None:
    process, lines, folder = watcher
    first = lines.expect("MEMORY.md: 1 new")
    assert "stored in" in first
    lines.expect("watching")
    memory = folder / "MEMORY.md"
    memory.write_text(memory.read_text() + "- Releases happen on Thursdays.\n")
    lines.expect("MEMORY.md: 1 new")
    daily = folder / "memory" / "2026-11-25.md"
    daily.parent.mkdir()
    daily.write_text("- Paired with Sam on the cache bug.\n")
    lines.expect("2026-11-25.md: 1 new")
    (folder / "ignored.py").write_text("x = 1\n")  # not notes: no pass, no line
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    lines.expect("stopped watching")
    assert not any("Traceback" in line for line in lines.seen)
    listed = json.loads(cli("list", "--json").out)["memories"]
    assert sorted(m["content"] for m in listed) == [
        "Paired with Sam on the cache bug.",
        "Releases happen on Thursdays.",
        "The build server is called forge.",
    ]


def test_a_failed_pass_does_not_end_the_watch(
    watcher: tuple[subprocess.Popen[str], Lines, Path], cli: Cli
) -> None:
    process, lines, folder = watcher
    lines.expect("MEMORY.md: 1 new")  # the catch-up pass
    lines.expect("watching")
    memory = folder / "MEMORY.md"
    holder = make_engine(cli.home, HashingEmbedder())  # the store is busy: the pass fails
    try:
        memory.write_text(memory.read_text() + "- The wiki moved to Notion.\n")
        failed = lines.expect("pass failed:")
        assert "another process" in failed or "locked" in failed, failed
    finally:
        holder.close()
    memory.write_text(memory.read_text() + "- The office closes at six.\n")
    lines.expect("MEMORY.md: 1 new (stored in")  # this change and the queued one
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    listed = json.loads(cli("list", "--json").out)["memories"]
    assert sorted(m["content"] for m in listed) == [
        "The build server is called forge.",
        "The office closes at six.",
        "The wiki moved to Notion.",
    ]


def test_the_service_killed_mid_sync_loses_and_doubles_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    notes = tmp_path / "MEMORY.md"
    sentences = distinct_statements(600, seed=7)
    notes.write_text("".join(f"- {s}\n" for s in sentences))
    service = start_service(home)
    try:
        run = cortex(home, "sync", str(notes), "--no-wait", "--json")
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["operations"] == 600  # acknowledged: spooled
        spool = Spool(home / "spool", _quiet())
        (key,) = [e["key"] for e in spool.pending()]
        wait_for(lambda: spool.progress(key).written >= 2, "two batches stored")
        service.send_signal(signal.SIGKILL)
        service.wait(timeout=30)
        killed_at = spool.progress(key).written
        assert spool.pending() and killed_at < 600 // 32  # killed mid-sync
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    service = start_service(home)  # it replays the spool as it starts
    try:
        wait_for(lambda: not Spool(home / "spool", _quiet()).pending(), "the spool to drain")
        remote = RemoteEngine.over_socket(home)
        everything = MemoryFilter(source_prefix="sync:", current_only=False, statuses=None)
        stored = _all(remote, everything)
        remote.close()
    finally:
        stop_service(home, service)
    assert len(stored) == 600, f"{600 - len(stored)} lost"
    assert len({m["source"] for m in stored}) == 600  # none doubled
    assert sorted(m["content"] for m in stored) == sorted(sentences)


def test_the_service_can_own_the_watch(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("- The staging cluster is named kestrel.\n")
    service = start_service(home)
    try:
        run = cortex(home, "watch", "--service", str(folder))
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == f"the service watches {folder}"
        remote = RemoteEngine.over_socket(home)
        try:
            wait_for(lambda: _recalled(remote, "staging cluster name", "kestrel"), "the catch-up")
            (folder / "MEMORY.md").write_text(
                "- The staging cluster is named kestrel.\n- The deploy bot is called heron.\n"
            )
            wait_for(lambda: _recalled(remote, "deploy bot name", "heron"), "the saved line")
        finally:
            remote.close()
        status = local_service.call(home, "GET", "/v1/status")
        assert status["watching"] == [str(folder)] and status["watch_error"] is None
        shown = cortex(home, "serve", "--status", "--home", str(home))
        assert f"watching for sync: {folder}" in shown.stdout.splitlines()
        off = cortex(home, "watch", "--service", "--off")
        assert off.returncode == 0, off.stderr
        assert "watches nothing" in off.stdout
        assert local_service.call(home, "GET", "/v1/status")["watching"] == []
    finally:
        stop_service(home, service)


def _recalled(remote: RemoteEngine, query: str, word: str) -> bool:
    response = remote.recall(RecallRequest(query=query, limit=3))
    return any(word in r.memory.content for r in response.results)


def _all(remote: RemoteEngine, flt: MemoryFilter) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    offset: str | None = None
    while True:
        page = remote.list_memories(flt, limit=200, offset=offset)
        found.extend({"source": m.source, "content": m.content} for m in page.memories)
        offset = page.next_offset
        if offset is None:
            return found


def _quiet() -> logging.Logger:
    return logging.getLogger("test")


def cortex(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cortex-tui ARGS` with the service on, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        env=service_env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_changes_wait_in_the_spool_while_the_service_cannot_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    notes = tmp_path / "MEMORY.md"
    notes.write_text("- The VPN gateway is vpn2.\n- Backups run at 02:00.\n")

    def sync() -> subprocess.CompletedProcess[str]:
        return cortex(home, "sync", str(notes))

    holder = make_engine(home, HashingEmbedder())  # owns the store: no service can open it
    try:
        queued = sync()
    finally:
        holder.close()
    assert queued.returncode == 0, queued.stderr
    head = queued.stdout.splitlines()[0]
    assert head.startswith(
        "synced 1 files: 1 changed, 0 unchanged; 2 changes queued in the spool; "
        "the service stores them when it next runs (it did not start: "
    ), head
    assert len(Spool(home / "spool", _quiet()).pending()) == 1
    try:
        later = sync()  # nothing new in the file; what waited is stored now
        assert later.returncode == 0, later.stderr
        assert later.stdout.splitlines()[0] == (
            "synced 1 files: 0 changed, 1 unchanged; 2 changes stored"
        )
        remote = RemoteEngine.over_socket(home)
        stored = _all(remote, MemoryFilter(source_prefix="sync:"))
        remote.close()
    finally:
        local_service.stop(home, wait=30)
    assert sorted(m["content"] for m in stored) == [
        "Backups run at 02:00.",
        "The VPN gateway is vpn2.",
    ]
