"""A Claude Code turn is captured whole whatever the transcript's timing: the prompt the
UserPromptSubmit hook received, the reply the Stop event carries, and what the transcript
holds between them, each once (the hooks as real subprocesses, in-process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.hooks.test_hooks import hook, repo

SESSION = "6f1c2d0e-lagging-transcript"
DECISION = (
    "Decision for the record: from now on harbor deploys with Argo CD instead of Flux, "
    "and Kwame owns the Argo CD setup."
)
REPLY = "Understood, Argo CD it is."
NEXT = "Also, the harbor staging database is restored from backup every Monday."
NEXT_REPLY = "Got it: Monday restores for staging."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return repo(tmp_path, "harbor")


def prompt(home: Path, cwd: Path, text: str, session: str = SESSION) -> None:
    event = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": session,
        "prompt": text,
        "cwd": str(cwd),
    }
    assert hook(home, "pre", json.dumps(event)).returncode == 0


def stop(home: Path, cwd: Path, transcript: Path, reply: str, session: str = SESSION) -> None:
    event = {
        "hook_event_name": "Stop",
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "stop_hook_active": False,
        "last_assistant_message": reply,
    }
    assert hook(home, "post", json.dumps(event)).returncode == 0


def write_turn(transcript: Path, user: str, assistant: str, message_id: str) -> None:
    """The turn's lines as Claude Code writes them, tool use in between."""
    lines: list[dict[str, Any]] = [
        {"type": "user", "message": {"role": "user", "content": user}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": message_id,
                "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}],
            },
        },
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": message_id + "-end",
                "content": [{"type": "text", "text": assistant}],
            },
        },
    ]
    with transcript.open("a") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")


def stored(home: Path, words: str) -> list[dict[str, Any]]:
    """The current memories holding every one of `words`."""
    found = Cli(home)("search", words, "--json")
    assert found.code == 0, found.err
    return list(json.loads(found.out)["memories"])


def test_a_transcript_that_lags_then_catches_up_gives_each_turn_once(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    transcript = tmp_path / "session.jsonl"  # not written yet when the Stop hook runs
    prompt(home, project, DECISION)
    stop(home, project, transcript, REPLY)
    [decision] = stored(home, "Kwame")
    assert "Argo CD instead of Flux" in decision["content"]

    write_turn(transcript, DECISION, REPLY, "m1")  # the first turn arrives late
    prompt(home, project, NEXT)
    write_turn(transcript, NEXT, NEXT_REPLY, "m2")
    stop(home, project, transcript, NEXT_REPLY)
    [monday] = stored(home, "Monday")
    assert "restored from backup every Monday" in monday["content"]
    [decision] = stored(home, "Kwame")
    assert decision["reinforced_count"] == 0  # the late lines were not captured again


def test_a_transcript_that_never_arrives_still_gives_the_persons_words(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    missing = tmp_path / "never-written.jsonl"
    for text, reply in ((DECISION, REPLY), (NEXT, NEXT_REPLY)):
        prompt(home, project, text)
        stop(home, project, missing, reply)
    [decision] = stored(home, "Kwame")
    [monday] = stored(home, "Monday")
    assert decision["session_id"] == monday["session_id"] == SESSION


def test_a_transcript_in_time_is_read_as_before(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    transcript = tmp_path / "session.jsonl"
    prompt(home, project, DECISION)
    write_turn(transcript, DECISION, REPLY, "m1")
    stop(home, project, transcript, REPLY)
    prompt(home, project, NEXT)
    write_turn(transcript, NEXT, NEXT_REPLY, "m2")
    stop(home, project, transcript, NEXT_REPLY)
    [decision] = stored(home, "Kwame")
    assert decision["reinforced_count"] == 0
    assert stored(home, "Monday")


def test_sessions_keep_their_own_prompts(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    prompt(home, project, DECISION, session="a")
    prompt(home, project, NEXT, session="b")
    stop(home, project, tmp_path / "b.jsonl", NEXT_REPLY, session="b")
    stop(home, project, tmp_path / "a.jsonl", REPLY, session="a")
    [decision] = stored(home, "Kwame")
    [monday] = stored(home, "Monday")
    assert (decision["session_id"], monday["session_id"]) == ("a", "b")
