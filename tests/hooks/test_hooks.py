"""`cortex-tui --hook pre|post` as the agents run it: a real subprocess, stdin JSON,
stdout in the caller's documented shape, always exit 0."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cortex_tui.agent_turn.project import safe_name
from cortex_tui.spool.durable import Spool, turn_key
from tests.conftest import copy_home
from tests.server.conftest import remember_offline


def hook(
    home: Path, kind: str, stdin: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    full_env.update(
        {
            "CORTEX_HOME": str(home),
            "CORTEX_EMBEDDER__KIND": "hashing",
            "CORTEX_HOOKS__PRE_TIMEOUT": "30",
            "CORTEX_DAEMON": "0",
        }
    )
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--hook", kind, *extra],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        check=False,
        timeout=120,
    )


@pytest.fixture(scope="module")
def filled_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("hooks") / "home"
    remember_offline(
        home, "The atlas API listens on port 8443 behind the gateway", "--project", "atlas"
    )
    remember_offline(home, "The harbor API listens on port 9000", "--project", "harbor")
    remember_offline(home, "Every API change needs a changelog entry")
    return home


@pytest.fixture
def home(filled_home: Path, tmp_path: Path) -> Path:
    return copy_home(filled_home, tmp_path / "home")


def repo(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root / "src"


def test_claude_prompt_gets_additional_context_for_its_project(home: Path, tmp_path: Path) -> None:
    event = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which port does the atlas API listen on?",
        "cwd": str(repo(tmp_path, "atlas")),
        "session_id": "s1",
    }
    r = hook(home, "pre", json.dumps(event))
    assert r.returncode == 0 and r.stderr == ""
    out = json.loads(r.stdout)
    assert set(out) == {"hookSpecificOutput"}
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "UserPromptSubmit"
    context = spec["additionalContext"]
    assert context.startswith("<cortex_memories>") and len(context) <= 10_000
    assert "port 8443" in context
    assert "port 9000" not in context  # harbor's memory is not atlas's
    # A global memory reaches the project's prompts that it bears on.
    asked = {**event, "prompt": "does every API change need a changelog entry?"}
    context = json.loads(hook(home, "pre", json.dumps(asked)).stdout)["hookSpecificOutput"]
    assert "changelog" in context["additionalContext"]


def test_text_format_openclaw_and_plain(home: Path) -> None:
    r = hook(
        home,
        "pre",
        json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "atlas API port"}),
        "--format",
        "text",
    )
    assert r.stdout.startswith("<cortex_memories>")
    r = hook(home, "pre", json.dumps({"prompt": "atlas API port", "messages": []}))
    assert set(json.loads(r.stdout)) == {"prependContext"}
    r = hook(home, "pre", "atlas API port")
    assert r.stdout.startswith("<cortex_memories>")


@pytest.mark.parametrize(
    "stdin",
    [
        json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "ok"}),
        json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "prompt": "<cortex_memories>\nalready here\n</cortex_memories> port?",
            }
        ),
        json.dumps({"hook_event_name": "PreToolUse", "prompt": "atlas API port"}),
        "",
    ],
)
def test_prompts_that_get_nothing(home: Path, stdin: str) -> None:
    r = hook(home, "pre", stdin)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_a_session_start_gets_the_projects_rules_and_preferences(
    home: Path, tmp_path: Path
) -> None:
    remember_offline(home, "Never push to main directly", "--project", "atlas", "--type", "rule")
    remember_offline(home, "Makefiles are indented with tabs", "--type", "preference")
    start = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s"}

    atlas = hook(home, "pre", json.dumps({**start, "cwd": str(repo(tmp_path, "atlas"))}))
    harbor = hook(home, "pre", json.dumps({**start, "cwd": str(repo(tmp_path, "harbor"))}))

    spec = json.loads(atlas.stdout)["hookSpecificOutput"]
    assert spec["hookEventName"] == "SessionStart"
    context = spec["additionalContext"]
    assert context.startswith("<cortex_memories>\nStanding rules and preferences")
    assert "Never push to main directly" in context and "indented with tabs" in context
    assert "port 8443" not in context  # a fact waits for a prompt that asks for it
    assert context.index("Never push") < context.index("indented with tabs")  # its own first
    other = json.loads(harbor.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Never push to main" not in other and "indented with tabs" in other


def test_a_sessions_first_prompt_gets_the_standing_context_its_start_did_not(
    home: Path, tmp_path: Path
) -> None:
    remember_offline(home, "Never push to main directly", "--project", "atlas", "--type", "rule")
    cwd = str(repo(tmp_path, "atlas"))

    def context(event: str, session: str, prompt: str = "") -> str:
        sent = {"hook_event_name": event, "session_id": session, "cwd": cwd, "prompt": prompt}
        out = hook(home, "pre", json.dumps({**sent, "source": "startup"})).stdout
        return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""

    # The session's start found no service: its first prompt is given what it missed.
    first = context("UserPromptSubmit", "cold", "can I push to main directly?")
    assert first.startswith("<cortex_memories>\nStanding rules and preferences")
    assert first.count("Never push to main directly") == 1  # recalled too, given once
    # Given once in the session: its later prompts are not given the rule again.
    assert context("UserPromptSubmit", "cold", "can I push to main directly, then?") == ""
    assert "Never push" in context("UserPromptSubmit", "other", "can I push to main directly?")
    # A session whose start was answered gets it once, there.
    assert "Never push" in context("SessionStart", "warm")
    assert "Standing rules" not in context("UserPromptSubmit", "warm", "which port for atlas?")


def test_failures_exit_zero_silently_and_are_logged(home: Path) -> None:
    r = hook(home, "pre", "atlas API port", env={"CORTEX_EMBEDDER__KIND": "onnx"})
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    log = (home / "logs" / "hooks.log").read_text()
    assert "pre hook (in-process) failed" in log and "reembed" in log
    strict = hook(home, "pre", "atlas API port", "--strict", env={"CORTEX_EMBEDDER__KIND": "onnx"})
    assert strict.returncode != 0


def test_timeout_prints_nothing(home: Path) -> None:
    r = hook(home, "pre", "atlas API port", env={"CORTEX_HOOKS__PRE_TIMEOUT": "0.001"})
    assert (r.returncode, r.stdout) == (0, "")
    assert "gave up after" in (home / "logs" / "hooks.log").read_text()


def test_a_prompt_a_hung_service_never_answered_is_recorded_as_timed_out(
    home: Path, tmp_path: Path
) -> None:
    """`given` tells a prompt the hook gave up on from one nothing bore on; the record
    keeps no word of the prompt (the privacy step never saw it)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(home / "cortex.sock"))  # takes connections, never answers
    listener.listen(4)
    try:
        event = {
            "hook_event_name": "UserPromptSubmit",
            "prompt": "which port does the atlas API listen on? key sk-live-1234",
            "cwd": str(repo(tmp_path, "atlas")),
            "session_id": "hung",
        }
        hung = {"CORTEX_DAEMON": "1", "CORTEX_HOOKS__PRE_TIMEOUT": "0.5"}
        r = hook(home, "pre", json.dumps(event), env={**hung, "CORTEX_HOOKS__COLD_START_WAIT": "0"})
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    finally:
        listener.close()
    shown = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--home", str(home), "given", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DAEMON": "0", "CORTEX_EMBEDDER__KIND": "hashing"},
        check=True,
    )
    [record] = json.loads(shown.stdout)
    assert (record["session"], record["trigger"], record["outcome"]) == (
        "hung",
        "prompt",
        "timed out",
    )
    assert record["prompt"] == "" and record["given"] == [] and "sk-live" not in shown.stdout
    text = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--home", str(home), "given"],
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DAEMON": "0", "CORTEX_EMBEDDER__KIND": "hashing"},
        check=True,
    )
    assert "nothing given: timed out" in text.stdout


def _transcript(path: Path, lines: list[dict[str, object]]) -> None:
    with path.open("a") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")


def test_claude_stop_captures_the_new_part_once(home: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    _transcript(
        transcript,
        [
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "Always run `make lint` before a pull request.",
                },
            },
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "id": "m1",
                    "content": [
                        {"type": "tool_use", "id": "x", "name": "Bash", "input": {}},
                        {
                            "type": "text",
                            "text": "Noted: the staging cluster resets every Sunday at 02:00.",
                        },
                    ],
                },
            },
        ],
    )
    stop = {
        "hook_event_name": "Stop",
        "session_id": "sess/../1",
        "transcript_path": str(transcript),
        "cwd": str(repo(tmp_path, "atlas")),
        "stop_hook_active": False,
    }
    r = hook(home, "post", json.dumps(stop))
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    found = hook(
        home,
        "pre",
        json.dumps(
            {"hook_event_name": "UserPromptSubmit", "prompt": "what before a pull request lint"}
        ),
    )
    assert "make lint" in found.stdout
    assert (home / "spool" / "offsets" / f"{safe_name('sess/../1')}.json").exists()
    log_before = (home / "logs" / "hooks.log").read_text().count("spooled turn")
    hook(home, "post", json.dumps(stop))  # nothing new in the transcript
    assert (home / "logs" / "hooks.log").read_text().count("spooled turn") == log_before
    assert Spool(home / "spool", logging.getLogger("test")).pending() == []


def test_stop_hook_active_and_subagents_return_at_once(home: Path) -> None:
    for extra in ({"stop_hook_active": True}, {"agent_id": "sub-1"}):
        event = {
            "hook_event_name": "Stop",
            "session_id": "s",
            "last_assistant_message": "The VPN needs a hardware token.",
            **extra,
        }
        r = hook(home, "post", json.dumps(event))
        assert (r.returncode, r.stdout) == (0, "")
    assert "spooled" not in (home / "logs" / "hooks.log").read_text()


def test_openclaw_agent_end_is_captured(home: Path) -> None:
    event = {
        "type": "agent_end",
        "success": True,
        "messages": [
            {"role": "user", "content": "old question"},
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Remember that the quay CLI is released with `quay release --tag`.",
                    }
                ],
            },
            {"role": "assistant", "content": "Will do."},
        ],
    }
    r = hook(home, "post", json.dumps(event))
    assert r.returncode == 0
    found = hook(home, "pre", "how is the quay CLI released", "--format", "text")
    assert "quay release --tag" in found.stdout


def test_spooled_turn_left_by_a_crash_is_replayed_once(home: Path) -> None:
    spool = Spool(home / "spool", logging.getLogger("test"))
    text = "User: Remember that the billing export runs at 03:00 UTC every night."
    key = turn_key("crashed", text)
    assert spool.append({"key": key, "text": text, "project": None, "session_id": "crashed"})
    assert not spool.append({"key": key, "text": text, "project": None, "session_id": "crashed"})
    r = hook(home, "post", "User: Thanks, that is all.")
    assert r.returncode == 0
    assert spool.pending() == []
    found = hook(home, "pre", "when does the billing export run", "--format", "text")
    assert "03:00 UTC" in found.stdout
    assert (home / "logs" / "hooks.log").read_text().count(f"captured turn {key[:8]}") == 1


def test_session_ids_are_safe_file_names() -> None:
    assert safe_name("../../etc/passwd") == "_.._etc_passwd"
    assert "/" not in safe_name("a/b") and safe_name("") == "no-session"
    assert safe_name("..") == "no-session"
