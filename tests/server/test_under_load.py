"""The service under several agents at once, and killed in the middle of capturing:
real service, real hook processes, real SIGKILL."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.bench.load import exchange, fact_word
from cortex_tui.clients import local_service
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import MemoryDraft
from cortex_tui.server.background import NICENESS
from cortex_tui.spool.durable import Spool
from tests.server.conftest import service_env, start_service, stop_service

log = logging.getLogger("test.under_load")


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def stored_per_fact(home: Path, words: list[str]) -> dict[str, int]:
    """How many memories (any status, any version) hold each fact's word."""
    counts = dict.fromkeys(words, 0)
    remote = RemoteEngine.over_socket(home)
    try:
        for line in remote.export():
            record = json.loads(line)
            if record.get("kind") == "memory":
                for word in record["data"]["content"].split():
                    if word in counts:
                        counts[word] += 1
    finally:
        remote.close()
    return counts


def drained(home: Path) -> bool:
    return not Spool(home / "spool", log).pending()


def hook(home: Path, kind: str, event: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--hook", kind],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=service_env(home),
        check=False,
        timeout=120,
    )


def test_eight_sessions_at_once_get_context_every_turn_and_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sessions, turns = 8, 3
    service = start_service(home)
    try:
        remote = RemoteEngine.over_socket(home)
        for line in (
            "We deploy the atlas service with Fly.io from the main branch.",
            "The nightly backup of the billing database runs at 02:00.",
            "Every pull request needs a passing lint job before review.",
        ):
            remote.remember(MemoryDraft(content=line))
        remote.close()
        questions = [
            "how do we deploy the atlas service?",
            "when does the billing backup run?",
            "what does a pull request need before review?",
        ]
        empty: list[str] = []
        failed: list[str] = []

        def session(number: int) -> None:
            transcript = tmp_path / f"session-{number}.jsonl"
            for turn in range(turns):
                question, answer = exchange(number, turn)
                with transcript.open("a") as out:
                    out.write(
                        json.dumps(
                            {"type": "user", "message": {"role": "user", "content": question}}
                        )
                        + "\n"
                    )
                    out.write(
                        json.dumps(
                            {
                                "type": "assistant",
                                "message": {
                                    "role": "assistant",
                                    "id": f"m-{number}-{turn}",
                                    "content": [{"type": "text", "text": answer}],
                                },
                            }
                        )
                        + "\n"
                    )
                stop = {
                    "hook_event_name": "Stop",
                    "session_id": f"agent-{number}",
                    "transcript_path": str(transcript),
                    "cwd": str(tmp_path),
                    "stop_hook_active": False,
                }
                prompt = {
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": questions[(number + turn) % len(questions)],
                    "session_id": f"agent-{number}",
                    "cwd": str(tmp_path),
                }
                for kind, event in (("post", stop), ("pre", prompt)):
                    run = hook(home, kind, event)
                    if run.returncode != 0 or run.stderr:
                        failed.append(f"{kind}: {run.returncode} {run.stderr[-200:]}")
                    if kind == "pre" and "<cortex_memories>" not in run.stdout:
                        empty.append(str(event["prompt"]))

        threads = [threading.Thread(target=session, args=(n,)) for n in range(sessions)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert failed == [] and empty == []
        wait_for(lambda: drained(home), "the spool to drain")
        words = [fact_word(s, t) for s in range(sessions) for t in range(turns)]
        assert set(stored_per_fact(home, words).values()) == {1}
        hook_log = (home / "logs" / "hooks.log").read_text()
        assert "failed" not in hook_log
        if sys.platform.startswith("linux"):
            # The capture prepared its batches on a thread below the agents' priority.
            state = local_service.status(home)
            assert state is not None
            niceness = thread_niceness(state["pid"])
            assert niceness[state["pid"]] + NICENESS in niceness.values()
    finally:
        stop_service(home, service)


def thread_niceness(pid: int) -> dict[int, int]:
    """Each thread of process `pid` and its nice value (Linux's /proc)."""
    values = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        fields = stat.read_text().rpartition(")")[2].split()
        values[int(stat.parent.name)] = int(fields[16])  # field 19: nice
    return values


def test_a_service_killed_mid_capture_stores_every_acknowledged_turn_once(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    sessions, turns = 8, 30
    entries = []
    for turn in range(turns):  # as the agents spool them: turn by turn, sessions interleaved
        for number in range(sessions):
            question, answer = exchange(number, turn)
            text = f"User: {question}\n\nAssistant: {answer}"
            entries.append(turn_entry(text, f"agent-{number}", None))
    service = start_service(home)
    try:
        acknowledged = Spool(home / "spool", log).append_many(entries)  # fsynced
        local_service.call(home, "POST", "/v1/spool/drain")
        wait_for(lambda: _captured(home) > 0, "a first batch to be stored")
        service.send_signal(signal.SIGKILL)
        service.wait(timeout=30)
        pending = len(Spool(home / "spool", log).pending())
        assert 0 < pending < acknowledged  # killed mid-capture
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    service = start_service(home)  # it replays the spool as it starts
    try:
        wait_for(lambda: drained(home), "the spool to drain")
        words = [fact_word(s, t) for s in range(sessions) for t in range(turns)]
        counts = stored_per_fact(home, words)
    finally:
        stop_service(home, service)
    lost = sum(1 for n in counts.values() if n == 0)
    doubled = sum(1 for n in counts.values() if n > 1)
    print(  # the figures the closing note quotes (pytest -s)
        f"acknowledged {acknowledged}, pending at the kill {pending}, "
        f"lost {lost}, doubled {doubled}"
    )
    assert acknowledged == sessions * turns
    assert (lost, doubled) == (0, 0)


def _captured(home: Path) -> int:
    state = local_service.status(home) or {}
    return int(state.get("captured", 0))
