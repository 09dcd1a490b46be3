"""The service as agents and users meet it: a real `cortex-tui serve` subprocess, the
real hook entry point and CLI in subprocesses, the real embedded store."""

from __future__ import annotations

import json
import logging
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cortex_tui.clients import local_service
from cortex_tui.engine.operations import OPERATIONS
from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import Candidate, MemoryDraft
from cortex_tui.recall.request import RecallRequest
from cortex_tui.spool.durable import Spool, turn_key
from cortex_tui.store.base import MemoryFilter
from tests.server.conftest import remember_offline, service_env, start_service, stop_service


def run(home: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=service_env(home, **env),
        check=False,
        timeout=120,
    )


def prompt_event(prompt: str, session: str = "s-1") -> str:
    return json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
            "session_id": session,
            "cwd": "/",
        }
    )


def wait_for(condition: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_socket_is_private_and_status_reports(service_home: Path) -> None:
    mode = stat.S_IMODE(service_home.joinpath("cortex.sock").stat().st_mode)
    assert mode == 0o600
    state = local_service.status(service_home)
    assert state is not None and state["store"].endswith("store")
    assert state["locks"]["read"]["count"] >= 1  # the warm-up recall held the engine
    out = run(service_home, "serve", "--status")
    assert out.returncode == 0 and out.stdout.startswith("running: pid")
    assert "engine held for read: " in out.stdout and "waited p50" in out.stdout


def test_pre_hook_answers_from_the_service_and_caches_repeats(
    service_home: Path, remote: RemoteEngine
) -> None:
    stored = remote.remember(MemoryDraft(content="The Atlas API listens on port 8443")).memory
    first = run(
        service_home, "--hook", "pre", stdin=prompt_event("which port does the atlas API listen on")
    )
    assert first.returncode == 0
    context = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "port 8443" in context
    # The read is counted after the answer went out, without invalidating the cache.
    wait_for(lambda: remote.get(stored.id).access_count == 1)
    again = run(
        service_home,
        "--hook",
        "pre",
        stdin=prompt_event("Which port does the Atlas API listen on?"),
    )
    assert again.stdout == first.stdout
    assert local_service.status(service_home)["context_cache"] == {"hits": 1, "misses": 1}  # type: ignore[index]
    # A write changes the store generation: the same prompt is recalled afresh.
    remote.remember(MemoryDraft(content="The Atlas API now listens on port 9443 as of today"))
    third = run(
        service_home, "--hook", "pre", stdin=prompt_event("which port does the atlas API listen on")
    )
    assert "9443" in third.stdout
    assert local_service.status(service_home)["context_cache"]["misses"] == 2  # type: ignore[index]
    other_session = run(
        service_home,
        "--hook",
        "pre",
        stdin=prompt_event("which port does the atlas API listen on", "s-2"),
    )
    assert "9443" in other_session.stdout


def test_post_hook_spools_and_the_service_captures(
    service_home: Path, remote: RemoteEngine, tmp_path: Path
) -> None:
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    event = {
        "hook_event_name": "Stop",
        "session_id": "s-9",
        "cwd": str(repo),
        "last_assistant_message": "We decided that the checkout service uses Redis 7 for carts.",
    }
    out = run(service_home, "--hook", "post", stdin=json.dumps(event))
    assert out.returncode == 0 and out.stdout == ""
    wait_for(lambda: remote.list_memories(MemoryFilter(source_prefix="hook")).total >= 1)
    captured = remote.list_memories(MemoryFilter(source_prefix="hook")).memories[0]
    assert "Redis 7" in captured.content
    assert captured.project == "shop" and captured.session_id == "s-9"
    wait_for(lambda: local_service.status(service_home)["spool_pending"] == 0)  # type: ignore[index]


def test_the_quiet_service_compacts_what_was_written(tmp_path: Path) -> None:
    """Once the store changed and no request came for `compact_after_quiet` seconds, the
    service folds what was written (here after 8 memories) into a compacted segment."""
    home = tmp_path / "home"
    process = start_service(
        home, CORTEX_SERVICE__COMPACT_AFTER_QUIET="0.5", CORTEX_STORE__COMPACT_AFTER="8"
    )
    try:
        time.sleep(1.0)
        status = local_service.status(home)
        assert status is not None and status["compaction"]["runs"] == 0  # nothing written
        remote = RemoteEngine.over_socket(home)
        try:
            for i in range(12):
                remote.remember(MemoryDraft(content=f"Service {i} listens on port {8000 + i}"))
            # A status call is a request too: ask seldom enough to leave the service quiet.
            deadline = time.monotonic() + 30
            while (status := local_service.status(home)) and not status["compaction"]["runs"]:
                assert time.monotonic() < deadline, "no compaction within 30 s"
                time.sleep(1.0)
            assert status is not None
            last = status["compaction"]["last"]
            assert last["compacted"] is True and last["seconds"] >= 0
            shown = run(home, "serve", "--status").stdout
            assert f"store compacted at {last['at']}, in {last['seconds']:.1f} s" in shown
            found = remote.recall(RecallRequest(query="which port does service 7 listen on"))
            assert "8007" in found.results[0].memory.content
        finally:
            remote.close()
    finally:
        stop_service(home, process)


def test_spool_replayed_on_start_resumes_an_interrupted_turn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    spool = Spool(home / "spool", logging.getLogger("test"))
    text = "Assistant: The release branch is cut every Monday."
    key = turn_key("s-1", text)
    spool.append({"key": key, "text": text, "project": None, "session_id": "s-1", "at": 0})
    # A crash after extraction and after the first of two candidates was written:
    progress = spool.progress(key)
    candidates = [
        Candidate(content="The release branch is cut every Monday."),
        Candidate(content="Release notes are written by the on-call engineer."),
    ]
    progress.save_candidates([c.model_dump(mode="json") for c in candidates])
    progress.mark_written(0)
    process = start_service(home)
    try:
        engine = RemoteEngine.over_socket(home)
        wait_for(lambda: not spool.pending())
        stored = engine.list_memories(MemoryFilter()).memories
        assert [m.content for m in stored] == ["Release notes are written by the on-call engineer."]
        engine.close()
    finally:
        stop_service(home, process)


def test_one_service_per_home_and_stale_socket_replaced(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(home / "cortex.sock"))
    stale.close()  # the file stays: what a killed service leaves behind
    process = start_service(home)
    try:
        second = run(home, "serve", "--home", str(home))
        assert second.returncode == 1
        assert "already serves" in second.stderr and "Traceback" not in second.stderr
    finally:
        stop_service(home, process)
    assert process.returncode == 0
    assert not (home / "cortex.sock").exists()
    assert run(home, "serve", "--status").returncode == 1


def test_tcp_needs_an_api_key_and_checks_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    refused = run(home, "serve", "--tcp", "0")
    assert refused.returncode == 1 and "CORTEX_API_KEY" in refused.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = start_service(home, "--tcp", str(port), CORTEX_API_KEY="s3cret-key")
    try:
        url = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{url}/v1/stats").status_code == 401
        bad = httpx.get(f"{url}/v1/stats", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401
        engine = RemoteEngine.over_tcp(url, "s3cret-key")
        assert engine.overview.stats().total == 0
        engine.close()
        # A post hook's event names a file for the service to read: never over TCP.
        post = httpx.post(
            f"{url}{local_service.POST_HOOK_ROUTE}",
            headers={"Authorization": "Bearer s3cret-key"},
            content=json.dumps({"hook_event_name": "Stop", "transcript_path": "/etc/passwd"}),
        )
        assert post.status_code == 403
        # The Unix socket needs no key: its file mode is the protection.
        assert local_service.status(home) is not None
    finally:
        stop_service(home, process)


def test_idle_service_exits_by_itself(tmp_path: Path) -> None:
    home = tmp_path / "home"
    process = start_service(home, "--idle-timeout", "1")
    assert process.wait(timeout=30) == 0
    assert local_service.status(home) is None


def test_hook_and_cli_start_the_service_when_needed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    created = run(home, "--home", str(home), "remember", "Ship on Fridays is forbidden")
    assert created.returncode == 0, created.stderr
    try:
        assert local_service.status(home) is not None  # started by the CLI, still serving
        out = run(home, "--hook", "pre", stdin=prompt_event("can we ship on fridays"))
        assert "Fridays" in out.stdout
        listed = run(home, "--home", str(home), "list", "--json")
        assert json.loads(listed.stdout)["total"] == 1
    finally:
        assert run(home, "serve", "--stop").stdout.strip() == "stopped"
    offline = run(home, "--home", str(home), "list", "--json", "--no-daemon")
    assert json.loads(offline.stdout)["total"] == 1
    assert local_service.status(home) is None


def test_a_session_start_starts_the_service_and_its_first_prompt_waits_for_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    remember_offline(home, "Ship on Fridays is forbidden")
    start = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "session_id": "s"})
    # A cap no service start fits in: only the cold-start wait lets the prompt through.
    cold = {"CORTEX_HOOKS__PRE_TIMEOUT": "0.2", "CORTEX_HOOKS__COLD_START_WAIT": "60"}
    try:
        began = run(home, "--hook", "pre", stdin=start, **cold)
        assert (began.returncode, began.stdout) == (0, "")  # no wait at a session's start
        wait_for(lambda: local_service.status(home) is not None)
        assert run(home, "serve", "--stop").stdout.strip() == "stopped"

        first = run(home, "--hook", "pre", stdin=prompt_event("can we ship on fridays"), **cold)
        assert "Fridays" in json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
        assert run(home, "serve", "--stop").stdout.strip() == "stopped"

        no_wait = {**cold, "CORTEX_HOOKS__COLD_START_WAIT": "0"}
        logged_before = len((home / "logs" / "hooks.log").read_text().splitlines())
        given_up = run(home, "--hook", "pre", stdin=prompt_event("ship on fridays?"), **no_wait)
        assert (given_up.returncode, given_up.stdout) == (0, "")
        # Either the start wait ends inside the cap (the hook says so, then that it is
        # done) or the cap ends first: both are this run's log lines.
        logged = "\n".join((home / "logs" / "hooks.log").read_text().splitlines()[logged_before:])
        assert "gave up after 0.2 s" in logged or "still starting: no context" in logged
    finally:
        wait_for(lambda: local_service.status(home) is not None, 60)  # the one it started
        assert local_service.stop(home)


def test_hook_stays_silent_when_the_service_cannot_start(tmp_path: Path) -> None:
    from cortex_tui.config import load_settings
    from cortex_tui.embed.hashing import HashingEmbedder
    from cortex_tui.engine.open import open_engine

    home = tmp_path / "home"
    owner = open_engine(load_settings(home), embedder=HashingEmbedder())  # holds the lock
    try:
        out = run(home, "--hook", "pre", stdin=prompt_event("anything at all here"))
        assert out.returncode == 0 and out.stdout == "" and out.stderr == ""
        log = (home / "logs" / "hooks.log").read_text()
        assert "no context this turn" in log or "failed" in log
    finally:
        owner.close()


@pytest.mark.parametrize("body", ["not json", '{"query": 3}'])
def test_bad_requests_get_a_clear_answer(service_home: Path, body: str) -> None:
    transport = httpx.HTTPTransport(uds=str(service_home / "cortex.sock"))
    with httpx.Client(transport=transport, base_url="http://cortex") as client:
        response = client.post(
            "/v1/recall", content=body, headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 422


@pytest.mark.parametrize(
    ("route", "body", "problem"),
    [
        ("/v1/remember", b'{"content": "caf\xff deploy"}', "not UTF-8 (invalid byte at offset 16)"),
        ("/v1/remember", b'{"content": "caf\\ud800 deploy"}', "lone UTF-16 surrogate"),
        ("/v1/recall", b'{"query": "x\\udfff"}', "lone UTF-16 surrogate"),
        (local_service.PRE_HOOK_ROUTE, b'{"prompt": "\xc3"}', "not UTF-8"),
    ],
)
def test_text_that_is_not_unicode_gets_a_400_not_a_500(
    service_home: Path, route: str, body: bytes, problem: str
) -> None:
    transport = httpx.HTTPTransport(uds=str(service_home / "cortex.sock"))
    with httpx.Client(transport=transport, base_url="http://cortex") as client:
        response = client.post(route, content=body, headers={"Content-Type": "application/json"})
        # An escaped backslash before "ud800" is ordinary text, not a surrogate.
        fine = client.post("/v1/remember", json={"content": "a literal \\ud800 in docs"})
    assert response.status_code == 400
    assert response.json()["error"] == "InvalidInputError"
    assert problem in response.json()["message"]
    assert fine.status_code == 200


def test_every_declared_operation_is_served_and_published(service_home: Path) -> None:
    """The routes are derived from the declarations: each one is in the OpenAPI spec at
    its path and method with its description, and a body the model forbids is refused."""
    spec = local_service.call(service_home, "GET", "/openapi.json")
    for operation in OPERATIONS:
        published = spec["paths"][operation.route.path][operation.route.method.lower()]
        assert published["description"] == operation.description
    update = spec["paths"]["/v1/memories/{memory_id}"]["patch"]
    assert [p["name"] for p in update["parameters"]] == ["memory_id"]
    entities = spec["paths"]["/v1/entities"]["get"]
    assert {p["name"] for p in entities["parameters"]} == {"type", "limit", "offset"}
    transport = httpx.HTTPTransport(uds=str(service_home / "cortex.sock"))
    with httpx.Client(transport=transport, base_url="http://cortex") as client:
        remembered = client.post("/v1/remember", json={"content": "Deploys run on Fridays"})
        memory_id = remembered.json()["memory"]["id"]
        unknown = client.patch(f"/v1/memories/{memory_id}", json={"colour": "blue"})
        changed = client.patch(f"/v1/memories/{memory_id}", json={"tags": ["deploy"]})
    assert unknown.status_code == 422
    assert changed.status_code == 200
    assert changed.json()["tags"] == ["deploy"]
    assert changed.json()["content"] == "Deploys run on Fridays"
