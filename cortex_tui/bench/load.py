"""Several agent sessions at once against one service: what a busy machine's agents wait
for, and whether capture keeps up.

Each session is a Claude Code session as the hooks see it: per turn, the exchange is
appended to its transcript, the Stop hook runs (`--hook post`: the service spools the
turn), then the next prompt's UserPromptSubmit hook (`--hook pre`) with an ordinary
question, back to back, every hook a fresh process. Each exchange states one fact named
by a word no other holds, so afterwards each can be looked for: recalled by a question
about it, and stored exactly once.

Capture alone is the same kind of turn spooled all at once, with nothing else running.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.bench.corpus import synthetic_texts
from cortex_tui.bench.hooks import run_hook, served_home
from cortex_tui.bench.timing import Timing, children_cpu
from cortex_tui.clients import local_service
from cortex_tui.config import load_settings
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.recall.request import RecallRequest
from cortex_tui.spool.durable import Spool

SESSIONS = 8
TURNS = 25
ALONE_TURNS = 100
LIMIT_ROUNDS = 20
"""Ordinary questions each of two sessions asks beside the large requests (at most)."""
log = logging.getLogger("cortex_tui.bench")
DRAIN_POLL = 0.05
DRAIN_TIMEOUT = 600.0
SYSTEMS = ("queue", "cache", "gateway", "scheduler", "indexer", "mailer", "ledger", "proxy")


SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ri", "so", "tu", "va", "ze")


def fact_word(session: int, turn: int) -> str:
    """The name only this exchange's fact holds: letters, as a service's name is (a
    name with digits reads as a value, so every fact would seem to change one)."""
    return f"{_spelled(session)}x{_spelled(turn)}x"


def _spelled(number: int) -> str:
    return "".join(SYLLABLES[int(digit)] for digit in str(number))


def exchange(session: int, turn: int) -> tuple[str, str]:
    """A user question and the assistant's answer stating one durable fact."""
    word = fact_word(session, turn)
    system = SYSTEMS[(session + turn) % len(SYSTEMS)]
    port = 20_000 + session * 100 + turn
    return (
        f"Where does the {word} {system} listen?",
        f"The {word} {system} listens on port {port} behind the internal load balancer.",
    )


def bench_load(
    seed_store: Callable[[Path], None],
    embedder_kind: str,
    sessions: int,
    turns: int,
    think: float = 0.0,
) -> dict[str, Any]:
    """Capture alone, then the burst of `sessions` × `turns` (each session waiting
    `think` seconds after a prompt, as its model answers), then requests at the size
    limits, against one fresh service."""
    with (
        served_home(seed_store, embedder_kind) as (home, env, _cold),
        tempfile.TemporaryDirectory(prefix="cortex-bench-load-") as tmp,
    ):
        alone = _capture_alone(home, ALONE_TURNS)
        burst = _burst(home, env, Path(tmp), sessions, turns, think)
        state = local_service.status(home) or {}
        limits = _at_the_limits(home, env, Path(tmp), min(LIMIT_ROUNDS, 4 * turns))
        after = local_service.status(home) or {}
        return {
            "sessions": sessions,
            "turns_per_session": turns,
            "think_seconds": think,
            "capture_alone": alone,
            **burst,
            "locks": state.get("locks", {}),
            "at_the_limits": limits,
            "longest_hold_ms": max(
                (held["hold_max_ms"] for held in after.get("locks", {}).values()), default=0.0
            ),
        }


def _at_the_limits(home: Path, env: dict[str, str], folder: Path, rounds: int) -> dict[str, Any]:
    """Requests as large as the default limits let through (a 64 KB memory, an 8 KB
    query, a 256 KB turn of statements) and prompts of 5 MB, while two sessions ask
    ordinary questions: what the ordinary ones wait, and whether any comes back empty."""
    settings = load_settings(home)
    limits = settings.limits
    statements = synthetic_texts(4000, seed=29)
    content = " ".join(statements)[: limits.content_chars]
    query = " ".join(reversed(statements))[: limits.query_chars]
    turn = ("Assistant: " + " ".join(statements))[: limits.capture_chars]
    huge_prompt = "what does the deploy checklist say? the log:\n" + "GET /health 200\n" * 330_000
    ordinary, huge = Timing(), Timing()
    empty: list[str] = []
    questions = synthetic_texts(2 * rounds, seed=31)
    before = _captured(home)

    def large_requests() -> None:
        for round_ in range(rounds // 4):
            local_service.call(
                home,
                "POST",
                "/v1/remember",
                {"content": f"{round_} {content}"[: limits.content_chars]},
                timeout=120,
            )
            local_service.call(
                home, "POST", "/v1/recall", {"query": query, "update_access": False}, timeout=120
            )
            Spool(home / "spool", log).append(
                turn_entry(f"{round_} {turn}"[: limits.capture_chars], "limits", None)
            )
            local_service.call(home, "POST", "/v1/spool/drain", timeout=30)
            output: list[str] = []
            huge.samples.append(
                run_hook("pre", _prompt_event(huge_prompt, "huge", folder), env, output=output)
            )
            if not "".join(output).strip():
                empty.append("the 5 MB prompt")

    def asking(number: int) -> None:
        for round_ in range(rounds):
            output: list[str] = []
            question = questions[number * rounds + round_]
            ordinary.samples.append(
                run_hook(
                    "pre", _prompt_event(question, f"ask-{number}", folder), env, output=output
                )
            )
            if not "".join(output).strip():
                empty.append(question)

    threads = [threading.Thread(target=large_requests)] + [
        threading.Thread(target=asking, args=(n,)) for n in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _wait_drained(home, before + rounds // 4)
    return {
        "ordinary_pre_hook": _percentiles(ordinary),
        "five_megabyte_pre_hook": _percentiles(huge),
        "pre_hook_empty": len(empty),
    }


def _capture_alone(home: Path, count: int) -> dict[str, float]:
    """Turns spooled at once (distinct sessions, nothing else running), then drained."""
    entries = []
    for index in range(count):
        question, answer = exchange(100 + index % 10, index)
        text = f"User: {question}\n\nAssistant: {answer}"
        entries.append(turn_entry(text, f"alone-{index % 10}", None))
    before = _captured(home)
    Spool(home / "spool", log).append_many(entries)
    t0 = time.perf_counter()
    local_service.call(home, "POST", "/v1/spool/drain", timeout=30)
    _wait_drained(home, before + count)
    seconds = time.perf_counter() - t0
    return {
        "turns": count,
        "seconds": round(seconds, 2),
        "turns_per_second": round(count / seconds, 1),
    }


def _burst(
    home: Path, env: dict[str, str], folder: Path, sessions: int, turns: int, think: float
) -> dict[str, Any]:
    questions = synthetic_texts(sessions * turns, seed=23)
    pre, post = Timing(), Timing()
    empty: list[str] = []
    failures: list[str] = []
    before = _captured(home)
    start = threading.Barrier(sessions)

    def session(number: int) -> None:
        transcript = folder / f"session-{number}.jsonl"
        start.wait()
        for turn in range(turns):
            try:
                _append_exchange(transcript, number, turn)
                post.samples.append(run_hook("post", _stop_event(number, transcript, folder), env))
                question = questions[number * turns + turn]
                seconds, output = _timed_pre(question, number, folder, env)
                pre.samples.append(seconds)
                if not output.strip():
                    empty.append(question)
                time.sleep(think)
            except Exception as exc:  # counted and reported: one failure must not end the run
                failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=session, args=(n,)) for n in range(sessions)]
    hooks_cpu, service_cpu = children_cpu(), _service_cpu(home)
    t0 = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    burst_seconds = time.perf_counter() - t0
    _wait_drained(home, before + sessions * turns)
    drained_after = time.perf_counter() - t0 - burst_seconds
    hooks_cpu, service_cpu = children_cpu() - hooks_cpu, _service_cpu(home) - service_cpu
    found = _look_for_facts(home, sessions, turns)
    return {
        "burst_seconds": round(burst_seconds, 1),
        "pre_hook": _percentiles(pre),
        "post_hook": _percentiles(post),
        "pre_hook_empty": len(empty),
        "hook_failures": failures[:5],
        "capture_under_load_turns_per_second": round(
            sessions * turns / (burst_seconds + drained_after), 1
        ),
        "all_captured_after_burst_s": round(drained_after, 2),
        "cpu_ms_per_turn": {
            "hook_processes": round(hooks_cpu * 1000 / (sessions * turns), 1),
            "service": round(service_cpu * 1000 / (sessions * turns), 1),
        },
        **found,
    }


def _service_cpu(home: Path) -> float:
    """CPU seconds the running service has used (from /proc; 0 where there is none)."""
    pid = (local_service.status(home, timeout=30) or {}).get("pid")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentiles(timing: Timing) -> dict[str, float]:
    ordered = sorted(timing.samples)
    if not ordered:
        return {"runs": 0}

    def at(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] * 1000, 1)

    return {"p50_ms": at(0.5), "p95_ms": at(0.95), "p99_ms": at(0.99), "runs": len(ordered)}


def _append_exchange(transcript: Path, session: int, turn: int) -> None:
    question, answer = exchange(session, turn)
    lines = [
        {"type": "user", "message": {"role": "user", "content": question}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": f"m-{session}-{turn}",
                "content": [{"type": "text", "text": answer}],
            },
        },
    ]
    with transcript.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)


def _stop_event(session: int, transcript: Path, cwd: Path) -> str:
    return json.dumps(
        {
            "hook_event_name": "Stop",
            "session_id": f"load-{session}",
            "transcript_path": str(transcript),
            "cwd": str(cwd),
            "stop_hook_active": False,
        }
    )


def _prompt_event(prompt: str, session: str, cwd: Path) -> str:
    return json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
            "session_id": session,
            "cwd": str(cwd),
        }
    )


def _timed_pre(question: str, session: int, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    output: list[str] = []
    seconds = run_hook("pre", _prompt_event(question, f"load-{session}", cwd), env, output=output)
    return seconds, "".join(output)


def _captured(home: Path) -> int:
    state = local_service.status(home, timeout=30) or {}
    return int(state.get("captured", 0))


def _wait_drained(home: Path, captured: int) -> None:
    """Until the service has captured `captured` turns since it started and the spool
    is empty."""
    deadline = time.perf_counter() + DRAIN_TIMEOUT
    while time.perf_counter() < deadline:
        state = local_service.status(home, timeout=30) or {}
        if state.get("captured", 0) >= captured and state.get("spool_pending", 1) == 0:
            return
        time.sleep(DRAIN_POLL)
    raise RuntimeError(f"capture did not finish within {DRAIN_TIMEOUT:.0f} s")


def _look_for_facts(home: Path, sessions: int, turns: int) -> dict[str, int]:
    """Each fact recalled by a question about it, and stored once (not lost, not two
    current memories)."""
    words = [fact_word(s, t) for s in range(sessions) for t in range(turns)]
    remote = RemoteEngine.over_socket(home)
    try:
        stored = dict.fromkeys(words, 0)
        for line in remote.export():
            record = json.loads(line)
            if record.get("kind") != "memory" or record["data"]["status"] != "active":
                continue
            if record["data"]["valid_to"] is not None:
                continue
            for word in record["data"]["content"].split():
                if word in stored:
                    stored[word] += 1
        recalled = 0
        for word in words:
            answer = remote.recall(
                RecallRequest(
                    query=f"which port does the {word} listen on", limit=5, update_access=False
                )
            )
            recalled += any(word in r.memory.content.split() for r in answer.results)
    finally:
        remote.close()
    return {
        "facts": len(words),
        "facts_recalled": recalled,
        "facts_lost": sum(1 for n in stored.values() if n == 0),
        "facts_doubled": sum(1 for n in stored.values() if n > 1),
    }
