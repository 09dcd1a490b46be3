"""The turn archive end to end: what a person said in passing in one session, which
capture does not keep as a memory, reaches a later session's prompt as a dated quote; a
prompt about nothing gets none; `sessions` lists, shows and searches what was said; and
the archive is never a memory, survives a backup and can be switched off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cortex_tui.engine.local import LocalEngine
from tests.conftest import MODELS_ENV, Cli, copy_home
from tests.hooks.test_hooks import hook, repo

PASSING = (
    "Can you look at why the nightly import is slow? Hmm, maybe it is the Marrowglen "
    "fixture, the one that seeds forty thousand rows before each run."
)
ANSWER = "I profiled the nightly import: most of the time goes to the index rebuild at the end."
ASKED = "How many rows does the Marrowglen fixture seed before each nightly import run?"


@pytest.fixture(scope="module")
def real_model(models_dir: Path) -> dict[str, str]:
    """The hooks' environment for the real model (the gate is calibrated for it)."""
    return {"CORTEX_EMBEDDER__KIND": "onnx", MODELS_ENV: str(models_dir)}


def _stop(
    env: dict[str, str], home: Path, tmp_path: Path, session: str, said: str, answered: str
) -> None:
    """One turn of a Claude Code session, captured as its Stop hook hands it over."""
    transcript = tmp_path / f"{session}.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": said}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": f"{session}-m1",
                "content": [{"type": "text", "text": answered}],
            },
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    stop = {
        "hook_event_name": "Stop",
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(repo(tmp_path, "atlas")),
        "stop_hook_active": False,
    }
    done = hook(home, "post", json.dumps(stop), env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def _prompt(env: dict[str, str], home: Path, tmp_path: Path, session: str, prompt: str) -> str:
    event = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "cwd": str(repo(tmp_path, "atlas")),
        "session_id": session,
    }
    done = hook(home, "pre", json.dumps(event), env=env)
    assert done.returncode == 0 and done.stderr == ""
    return (
        str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
        if done.stdout
        else ""
    )


@pytest.fixture(scope="module")
def said_home(tmp_path_factory: pytest.TempPathFactory, real_model: dict[str, str]) -> Path:
    """Session A: a detail said in passing, captured through the real Stop hook."""
    tmp = tmp_path_factory.mktemp("archive")
    home = tmp / "home"
    _stop(real_model, home, tmp, "session-a", PASSING, ANSWER)
    return home


@pytest.fixture
def home(said_home: Path, tmp_path: Path) -> Path:
    return copy_home(said_home, tmp_path / "home")


def test_a_detail_said_in_passing_reaches_a_later_session_as_a_dated_quote(
    home: Path, tmp_path: Path, real_model: dict[str, str]
) -> None:
    cli = Cli(home, embedder=None)
    memories = json.loads(cli("list", "--json").out)["memories"]
    assert not any("Marrowglen" in m["content"] for m in memories)  # capture kept none of it
    context = _prompt(real_model, home, tmp_path, "session-b", ASKED)
    quotes = [line for line in context.split("\n") if line.startswith("- [quote · ")]
    assert len(quotes) == 1, context
    label, said = quotes[0][3:].split("] ", 1)
    day, short_id, project = label.split(" · ")[1:]
    assert (day, project) == (_today(cli), "atlas")
    assert said.startswith("the user, in session session-: “") and said.endswith("”")
    assert "seeds forty thousand rows before each run" in said
    shown = cli("sessions", "show", "session-a")
    assert shown.code == 0 and short_id in shown.out
    # What the prompt was given says so: the quote, with its relevance.
    given = cli("given", "--session", "session-b", "--explain").out
    assert f"quote  {short_id}" in given and "relevance " in given


def test_a_prompt_about_nothing_gets_no_quote(
    home: Path, tmp_path: Path, real_model: dict[str, str]
) -> None:
    assert (
        _prompt(
            real_model, home, tmp_path, "session-b", "Write a limerick about a cat who loves coffee"
        )
        == ""
    )


def test_sessions_lists_shows_and_searches_what_was_said(
    home: Path, tmp_path: Path, real_model: dict[str, str]
) -> None:
    _stop(
        real_model,
        home,
        tmp_path,
        "session-c",
        "The review app runs on port 6543 for now.",
        "Noted.",
    )
    cli = Cli(home, embedder=None)
    listed = cli("sessions")
    assert listed.code == 0
    lines = listed.out.splitlines()
    assert [line.split()[0] for line in lines] == ["session-c", "session-a"]  # newest first
    assert "1 turn, 2 messages" in lines[1] and lines[1].endswith("atlas")
    assert "1 turn, 1 message " in lines[0]  # "Noted." says nothing worth keeping
    shown = cli("sessions", "show", "session-a").out.splitlines()
    assert [line.split()[4] for line in shown[::2]] == ["user", "assistant"]  # as said
    assert "Marrowglen fixture" in shown[1] and "index rebuild" in shown[3]
    found = json.loads(cli("sessions", "search", ASKED, "--json").out)
    assert found[0]["session_id"] == "session-a" and "Marrowglen" in found[0]["text"]
    assert found[0]["gate"]["relevance"] > found[-1]["gate"]["relevance"]
    scoped = cli("sessions", "--project", "nowhere", "search", ASKED)
    assert scoped.code == 0 and "Marrowglen" not in scoped.out
    missing = cli("sessions", "show", "session-zzz")
    assert missing.code != 0 and missing.err.count("\n") == 1 and "sessions" in missing.err


def test_a_turn_captured_twice_is_archived_once(home: Path, tmp_path: Path) -> None:
    cli = Cli(home, embedder=None)
    for _ in range(2):
        cli("capture", "--session", "session-d", "--user", PASSING, "--assistant", ANSWER)
    shown = cli("sessions", "show", "session-d", "--json")
    assert [m["speaker"] for m in json.loads(shown.out)] == ["user", "assistant"]


def test_the_archive_survives_a_backup_and_a_restore(
    home: Path, tmp_path: Path, real_model: dict[str, str]
) -> None:
    cli = Cli(home, embedder=None)
    backup = tmp_path / "before.zip"
    assert cli("backup", str(backup)).code == 0
    _stop(
        real_model, home, tmp_path, "session-e", "Let us call the new queue Quillfeather.", "Done."
    )
    assert "session-e" in cli("sessions").out
    restored = cli("restore-backup", str(backup), "--yes")
    assert restored.code == 0, restored.err
    assert [line.split()[0] for line in cli("sessions").out.splitlines()] == ["session-a"]


def test_with_the_archive_off_nothing_is_kept_or_quoted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    off = {"CORTEX_ARCHIVE__ENABLED": "false"}
    cli = Cli(home, embedder=None)
    cli("capture", "--session", "s", "--user", PASSING, "--assistant", ANSWER, env=off)
    assert "the turn archive is off" in cli("sessions", env=off).out
    refused = cli("sessions", "search", ASKED, env=off)
    assert refused.code != 0 and "archive.enabled" in refused.err


def _today(cli: Cli) -> str:
    return str(json.loads(cli("sessions", "--json").out)[0]["first_said"])[:10]


RULE = "Always run `make lint` before opening a pull request."


@pytest.fixture(scope="module")
def rule_home(tmp_path_factory: pytest.TempPathFactory, real_model: dict[str, str]) -> Path:
    """A rule capture keeps as a memory, said in a session of its own."""
    tmp = tmp_path_factory.mktemp("rule")
    home = tmp / "home"
    _stop(real_model, home, tmp, "session-r", RULE, "Understood, I will run it every time.")
    return home


def test_a_memory_taken_from_a_sentence_wins_over_its_quote(
    rule_home: Path, tmp_path: Path, real_model: dict[str, str]
) -> None:
    home = copy_home(rule_home, tmp_path / "home")
    cli = Cli(home, embedder=None)
    assert "make lint" in cli("list").out  # capture kept the rule
    later = tmp_path / "later"  # the same repository, from another checkout
    later.mkdir()
    context = _prompt(real_model, home, later, "session-s", "What do I run before a pull request?")
    lines = [line for line in context.split("\n") if "make lint" in line]
    assert len(lines) == 1 and not lines[0].startswith("- [quote"), context


def test_a_captured_memory_shows_the_turn_it_was_taken_from(
    rule_home: Path, tmp_path: Path
) -> None:
    cli = Cli(copy_home(rule_home, tmp_path / "home"), embedder=None)
    (memory,) = json.loads(cli("list", "--json").out)["memories"]
    shown = cli("show", memory["id"][:8])
    assert shown.code == 0, shown.err
    turn = shown.out.split("taken from this turn of session session-r:\n", 1)[1].splitlines()
    assert [line.split()[4] for line in turn[::2]] == ["user", "assistant"]
    assert turn[1].strip() == RULE and "every time" in turn[3]
    assert cli("get", memory["id"]).out == shown.out
    # A memory written by hand was said in no turn.
    written = json.loads(cli("remember", "The staging database is Postgres 16.", "--json").out)
    assert "taken from" not in cli("show", written["memory"]["id"]).out


def test_a_long_answer_is_quoted_by_its_sentences_nearest_the_query(
    onnx_engine: LocalEngine,
) -> None:
    filler = [
        f"Step {n} of the migration renamed the {word} table and rebuilt its indexes."
        for n, word in enumerate(["orders", "invoices", "carts", "refunds", "coupons", "users"])
    ]
    said = "The Quillfeather queue drains every ninety seconds."
    answer = " ".join([*filler[:3], said, *filler[3:]])
    onnx_engine.capture(f"User: How did the migration go?\nAssistant: {answer}", session_id="s")
    (quote,) = onnx_engine.archive.search("how often does the Quillfeather queue drain?", limit=1)
    assert said in quote.text
    assert len(quote.text) <= onnx_engine.settings.archive.quote_chars
    assert quote.text != answer and quote.speaker == "assistant"
