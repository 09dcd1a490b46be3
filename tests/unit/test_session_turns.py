"""How a Claude Code turn is put together from the hooks' events and the transcript."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from cortex_tui.agent_turn.agents.claude_code.transcript import Turn, conversation_text
from cortex_tui.agent_turn.sessions import (
    PROMPT_CHARS,
    SESSION_START,
    SessionTurns,
    prune_sessions,
    standing_key,
)

PROMPT = "From now on harbor deploys with Argo CD; Kwame owns it."
REPLY = "Understood, Argo CD it is."


def stop(home: Path, transcript: list[Turn], reply: str | None, session: str = "s") -> str:
    """One Stop: the turn's text, with the session's state settled as after spooling."""
    kept = SessionTurns(home, session)
    plan = kept.plan(transcript, reply)
    kept.settle(plan)
    return conversation_text(plan.turns)


def keep(home: Path, prompt: str, session: str = "s") -> None:
    SessionTurns(home, session).before_turn(prompt, None)


def test_with_no_transcript_the_turn_is_the_prompt_and_the_reply(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    assert stop(tmp_path, [], REPLY) == f"User: {PROMPT}\n\nAssistant: {REPLY}"
    assert stop(tmp_path, [], None) == ""  # the prompt was used


def test_a_transcript_in_time_adds_what_lies_between_and_repeats_nothing(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    transcript = [
        Turn("user", PROMPT),
        Turn("assistant", "Let me check the deploy config first."),
        Turn("assistant", REPLY),
    ]
    assert stop(tmp_path, transcript, REPLY) == conversation_text(transcript)


def test_lines_a_lagging_transcript_shows_later_are_dropped_once(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    stop(tmp_path, [], REPLY)
    keep(tmp_path, "Thanks. Also: staging restores every Monday.")
    late = [
        Turn("user", PROMPT),
        Turn("assistant", f"Let me look.\n\n{REPLY}"),  # the reply joined to the message before
        Turn("user", "Thanks. Also: staging restores every Monday."),
        Turn("assistant", "Noted."),
    ]
    assert stop(tmp_path, late, "Noted.") == conversation_text(late[2:])
    # Owed once: the same words said again later are a new turn.
    again = [Turn("user", PROMPT), Turn("assistant", REPLY)]
    assert stop(tmp_path, again, REPLY) == conversation_text(again)


def test_a_partial_transcript_gets_the_prompt_before_and_the_reply_after(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    partial = [Turn("assistant", "Let me check the deploy config first.")]
    text = stop(tmp_path, partial, REPLY)
    assert text == conversation_text([Turn("user", PROMPT), *partial, Turn("assistant", REPLY)])


def test_the_same_stop_handled_twice_makes_one_turn(tmp_path: Path) -> None:
    """The hook process spools a turn itself when the service answers late, and the
    service still handles the same event."""
    keep(tmp_path, PROMPT)
    assert stop(tmp_path, [], REPLY) == f"User: {PROMPT}\n\nAssistant: {REPLY}"
    assert stop(tmp_path, [], REPLY) == ""
    in_time = [Turn("user", "Is it live?"), Turn("assistant", "Yes.")]
    assert stop(tmp_path, in_time, "Yes.") == conversation_text(in_time)
    assert stop(tmp_path, [], "Yes.") == ""


def test_a_prompt_kept_while_a_stop_is_spooled_stays_for_its_own_turn(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    kept = SessionTurns(tmp_path, "s")
    plan = kept.plan([], REPLY)
    keep(tmp_path, "And the next question.")  # typed while the Stop hook ran
    kept.settle(plan)
    assert stop(tmp_path, [], "Next answer.") == (
        "User: And the next question.\n\nAssistant: Next answer."
    )


def test_a_prompt_kept_shortened_is_still_found_in_the_transcript(tmp_path: Path) -> None:
    long_prompt = "Please review this log. " + "x " * PROMPT_CHARS
    keep(tmp_path, long_prompt)
    transcript = [Turn("user", long_prompt), Turn("assistant", REPLY)]
    assert stop(tmp_path, transcript, REPLY) == conversation_text(transcript)


def test_lone_commands_wrappers_and_repeats_are_not_kept_as_prompts(tmp_path: Path) -> None:
    for prompt in ("/compact", "/review", "<command-name>/clear</command-name>", "  "):
        keep(tmp_path, prompt)
    keep(tmp_path, "/tmp is full again")
    keep(tmp_path, PROMPT)
    keep(tmp_path, PROMPT)  # a retried hook
    assert stop(tmp_path, [], None) == f"User: /tmp is full again\n\nUser: {PROMPT}"


def test_the_standing_context_is_due_once_a_session_and_again_to_a_retry(tmp_path: Path) -> None:
    session = SessionTurns(tmp_path, "cold")
    first = standing_key(PROMPT)
    assert session.before_turn(PROMPT, first)
    assert session.before_turn(PROMPT, first)  # the hook gave up and asked again
    assert not session.before_turn("Next question.", standing_key("Next question."))
    started = SessionTurns(tmp_path, "warm")
    assert started.before_turn(None, SESSION_START)
    assert not started.before_turn(PROMPT, standing_key(PROMPT))


def test_a_damaged_state_file_is_a_fresh_session(tmp_path: Path) -> None:
    keep(tmp_path, PROMPT)
    [state] = (tmp_path / "spool" / "sessions").glob("*.json")
    state.write_text("{not json")
    assert stop(tmp_path, [], REPLY) == f"Assistant: {REPLY}"


def test_sessions_untouched_for_a_month_and_dead_writers_files_are_forgotten(
    tmp_path: Path,
) -> None:
    keep(tmp_path, PROMPT, session="old")
    keep(tmp_path, PROMPT, session="new")
    folder = tmp_path / "spool" / "sessions"
    left_behind = folder / ".new.json.4242.tmp"
    left_behind.write_text("{")
    month_ago = time.time() - 31 * 86_400
    for path in (folder / "old.json", left_behind):
        os.utime(path, (month_ago, month_ago))
    assert prune_sessions(tmp_path) == 1
    assert sorted(path.name for path in folder.iterdir()) == [".lock", "new.json"]


def test_once_captured_the_state_keeps_no_words_of_the_turn(tmp_path: Path) -> None:
    """Owed lines and the last reply are known by digests: a key pasted in a prompt is
    not left in the session's state after its turn is spooled."""
    said = f"{PROMPT} The deploy token is ghp_R8mQ2vXk9LtY4wZp7NcB3sHd6FjA1uE5gK0o."
    keep(tmp_path, said)
    assert stop(tmp_path, [], REPLY) == f"User: {said}\n\nAssistant: {REPLY}"
    [state] = (tmp_path / "spool" / "sessions").glob("*.json")
    assert "ghp_" not in state.read_text() and "Argo" not in state.read_text()
    late = [Turn("user", said), Turn("assistant", f"Checking.\n\n{REPLY}")]
    assert stop(tmp_path, late, None) == ""  # each owed line still found once


def test_a_prompt_kept_through_the_privacy_step_is_still_found_in_the_transcript(
    tmp_path: Path,
) -> None:
    said = "Use AKIAZ3MSJV4WWNKWW5FQ for the staging deploys from now on."
    redacted = "Use [secret: AWS access key] for the staging deploys from now on."
    SessionTurns(tmp_path, "s").before_turn(said, None, lambda _text: redacted)
    [state] = (tmp_path / "spool" / "sessions").glob("*.json")
    assert "AKIA" not in state.read_text()
    transcript = [Turn("user", said), Turn("assistant", REPLY)]
    assert stop(tmp_path, transcript, REPLY) == conversation_text(transcript)
    keep(tmp_path, said, session="lagging")
    lagging = SessionTurns(tmp_path, "lagging")
    lagging.settle(lagging.plan([], REPLY))
    assert stop(tmp_path, transcript, None, session="lagging") == ""


def test_a_state_written_by_the_version_before_digests_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "spool" / "sessions"
    folder.mkdir(parents=True)
    older = {
        "prompts": ["And the next question."],
        "owed": [["user", PROMPT], ["assistant", REPLY]],
        "reply": REPLY,
        "standing": None,
    }
    (folder / "s.json").write_text(json.dumps(older))
    late = [Turn("user", PROMPT), Turn("assistant", f"Let me look.\n\n{REPLY}")]
    assert stop(tmp_path, late, "Next answer.") == (
        "User: And the next question.\n\nAssistant: Next answer."
    )
