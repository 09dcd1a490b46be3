"""Fuzzed hook input against the real hook entry point, in-process and through the
service: whatever arrives, the hook exits 0, prints nothing or valid output, writes
nothing to stderr, and the service keeps answering.

Strategies cover Claude Code's event shapes (every field also given the wrong type),
OpenClaw's, and raw bytes (invalid UTF-8, lone surrogates, cut-off JSON). Transcript
paths point at real transcripts, named pipes, devices, folders and missing files.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortex_tui.clients import local_service
from cortex_tui.hooks.run import run_hook
from tests.server.conftest import (
    remember_offline,
    service_env,
    start_service,
    stop_service,
)

CLAUDE_EVENTS = [
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "SubagentStop",
    "SubagentStart",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "PreCompact",
    "SessionEnd",
    "PermissionRequest",
]
OPENCLAW_EVENTS = ["before_agent_start", "agent_end", "message_received"]


# A longer campaign than CI's, for a measurement: HOOK_FUZZ_SCALE=10 runs ten times
# as many examples (5,300) against the same assertions.
SCALE = float(os.environ.get("HOOK_FUZZ_SCALE", "1"))


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=round(examples * SCALE),
        deadline=None,
        derandomize=True,  # the same examples every run: CI stays reproducible
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """A strategy drawn from `choices` in proportion to their weights. `one_of` alone
    spends most examples on whatever is simplest to generate, which here would leave
    the paths that do real work (a prompt long enough to recall on) nearly untried."""
    pool = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.sampled_from(pool).flatmap(lambda strategy: strategy)


odd_char = st.one_of(
    st.characters(),
    st.characters(categories=["Cs"]),  # lone surrogates
    st.sampled_from('<>&{}[]"\\\n\t\r\x00\u2028'),
)
odd_piece = st.one_of(
    st.text(odd_char, max_size=40),
    st.characters(categories=["Cs"]),
    st.sampled_from(["</cortex_memories>", "<cortex_memories>", "\n\nSystem: ", "Remember that "]),
)
odd_text = st.lists(odd_piece, max_size=6).map("".join)
# Odd text inside an ordinary prompt, so that it reaches recall and capture, not only
# the checks that turn away short or malformed input.
FACT = "The gateway API listens on port 8443"
QUESTIONS = ["which port does the gateway API use", "Remember that releases are cut on Monday"]
ordinary = st.builds(
    lambda question, cut, odd: question[:cut] + odd + question[cut:],
    st.sampled_from(QUESTIONS),
    st.integers(min_value=0, max_value=40),
    odd_text,
)
wrong = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Transcript paths of every kind a hostile or broken event could name."""
    folder = tmp_path_factory.mktemp("paths")
    transcript = folder / "t.jsonl"
    transcript.write_bytes(
        b'{"type": "user", "message": {"role": "user", "content": "Always run the linter."}}\n'
        b'{"type": "user", "message": {"role": "user", "content": "caf\\ud800 \xff torn'
    )
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    return {
        "transcript": str(transcript),
        "fifo": str(fifo),
        "zero": "/dev/zero",
        "folder": str(folder),
        "missing": str(folder / "missing.jsonl"),
    }


def claude_events(paths: dict[str, str]) -> st.SearchStrategy[dict[str, Any]]:
    path = st.one_of(st.sampled_from(sorted(paths.values())), odd_text, wrong)
    return st.fixed_dictionaries(
        {
            # The events the hooks act on, more often than the rest.
            "hook_event_name": st.sampled_from(
                ["UserPromptSubmit", "Stop", "SessionStart"] * 4 + CLAUDE_EVENTS
            ),
            "prompt": weighted((3, ordinary), (1, odd_text), (1, wrong)),
        },
        optional={
            "session_id": st.one_of(st.sampled_from(["s-1", "../../x", ""]), odd_text, wrong),
            "transcript_path": path,
            "cwd": st.one_of(st.sampled_from(["/", "/tmp", paths["folder"]]), odd_text, wrong),
            "source": st.one_of(st.sampled_from(["startup", "resume", "compact", "clear"]), wrong),
            "stop_hook_active": st.one_of(st.booleans(), wrong),
            "agent_id": st.one_of(odd_text, wrong),
            "last_assistant_message": st.one_of(ordinary, odd_text, wrong),
        },
    )


def openclaw_events() -> st.SearchStrategy[dict[str, Any]]:
    block = st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("text"), "text": st.one_of(ordinary, odd_text, wrong)}
        ),
        wrong,
    )
    message = st.one_of(
        st.fixed_dictionaries(
            {
                "role": st.one_of(st.sampled_from(["user", "assistant", "system", "tool"]), wrong),
                "content": st.one_of(ordinary, odd_text, st.lists(block, max_size=3), wrong),
            }
        ),
        wrong,
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(st.sampled_from(OPENCLAW_EVENTS), wrong),
            "prompt": st.one_of(ordinary, odd_text, wrong),
            "messages": st.one_of(st.lists(message, max_size=4), wrong),
            "sessionId": st.one_of(odd_text, wrong),
            "cwd": st.one_of(odd_text, wrong),
        },
    )


def as_bytes(value: Any, ascii_only: bool, cut: int | None) -> bytes:
    """JSON with lone surrogates as `\\ud800` escapes or as raw (invalid) bytes, maybe cut."""
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    return data if cut is None else data[:cut]


def hook_inputs(paths: dict[str, str]) -> st.SearchStrategy[bytes]:
    """Half well-formed Claude Code events, the rest OpenClaw events, cut-off JSON and
    raw bytes."""
    claude = st.builds(as_bytes, claude_events(paths), st.booleans(), st.none())
    openclaw = st.builds(as_bytes, openclaw_events(), st.booleans(), st.none())
    odd_names = st.fixed_dictionaries({"hook_event_name": odd_text, "prompt": ordinary})
    cut = st.builds(
        as_bytes,
        st.one_of(claude_events(paths), openclaw_events(), odd_names, wrong),
        st.booleans(),
        st.integers(min_value=0, max_value=400),
    )
    raw = st.one_of(
        st.binary(max_size=600),
        odd_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n + b"]" * n),
    )
    return weighted((5, claude), (2, openclaw), (2, cut), (1, raw))


def assert_contract(output: str) -> None:
    """Empty, a context block (text callers), or one of the JSON shapes agents read."""
    if not output:
        return
    if output.startswith("<cortex_memories>"):
        assert output.rstrip("\n").endswith("</cortex_memories>")
        return
    payload = json.loads(output)
    assert set(payload) in ({"hookSpecificOutput"}, {"prependContext"})


@pytest.fixture
def fuzz_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A home holding FACT, which in-process hook runs use."""
    home = tmp_path / "home"
    remember_offline(home, FACT)
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # run_hook redirects it
    monkeypatch.setenv("CORTEX_HOME", str(home))
    monkeypatch.setenv("CORTEX_EMBEDDER__KIND", "hashing")
    monkeypatch.setenv("CORTEX_HOOKS__PRE_TIMEOUT", "30")
    monkeypatch.setenv("CORTEX_HOOKS__POST_TIMEOUT", "30")
    return home


def run_in_process(kind: str, data: bytes, capsys: pytest.CaptureFixture[str]) -> str:
    out = io.StringIO()
    assert run_hook(kind, io.BytesIO(data), out) == 0
    assert_contract(out.getvalue())
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")
    return out.getvalue()


def fuzz_hooks(examples: int, paths: dict[str, str], capsys: pytest.CaptureFixture[str]) -> int:
    """Run `examples` fuzzed pre and post hooks in this process; how many gave context."""
    answered = 0

    @fuzz(examples)
    @given(kind=st.sampled_from(["pre", "post"]), data=hook_inputs(paths))
    def check(kind: str, data: bytes) -> None:
        nonlocal answered
        answered += bool(run_in_process(kind, data, capsys))

    check()
    return answered


@pytest.mark.slow
def test_fuzzed_input_in_process_keeps_the_contract(
    paths: dict[str, str],
    fuzz_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CORTEX_DAEMON", "0")
    answered = fuzz_hooks(200, paths, capsys)
    log = (fuzz_home / "logs" / "hooks.log").read_text()
    # The examples reached real work, not only the parser: turns captured, context given.
    assert log.count("captured turn") > 0 and answered > 0


@pytest.mark.slow
def test_fuzzed_input_through_the_service_keeps_the_contract_and_the_service(
    paths: dict[str, str],
    fuzz_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = fuzz_home
    process = start_service(home)
    monkeypatch.setenv("CORTEX_DAEMON", "1")
    try:
        answered = fuzz_hooks(300, paths, capsys)
        status = local_service.status(home)
        assert status is not None and answered > 0
        ordinary = json.dumps(
            {"hook_event_name": "UserPromptSubmit", "prompt": "which port does the gateway use"}
        )
        out = io.StringIO()
        run_hook("pre", io.BytesIO(ordinary.encode()), out)
        assert "8443" in out.getvalue()
    finally:
        stop_service(home, process)
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()


@pytest.mark.slow
def test_fuzzed_bytes_through_the_hook_command(paths: dict[str, str], tmp_path: Path) -> None:
    """The entry agents run (`cortex-tui --hook`), as a subprocess, on the service."""
    home = tmp_path / "home"
    process = start_service(home)
    try:

        @fuzz(30)
        @given(kind=st.sampled_from(["pre", "post"]), data=hook_inputs(paths))
        def check(kind: str, data: bytes) -> None:
            result = subprocess.run(
                [sys.executable, "-m", "cortex_tui", "--hook", kind],
                input=data,
                capture_output=True,
                env=service_env(home),
                check=False,
                timeout=60,
            )
            assert (result.returncode, result.stderr) == (0, b"")
            assert_contract(result.stdout.decode("utf-8"))

        check()
        assert local_service.status(home) is not None
    finally:
        stop_service(home, process)
