"""How a Claude Code turn is put together from the hooks' events and the transcript."""

from __future__ import annotations

import os
import time
from pathlib import Path

from cortex_tui.capture.transcript import Turn, conversation_text
from cortex_tui.integrations.session_turns import SessionTurns, prune_sessions

PROMPT = "From now on harbor deploys with Argo CD; Kwame owns it."
REPLY = "Understood, Argo CD it is."


def turn_text(home: Path, session: str, transcript: list[Turn], reply: str | None) -> str:
    """One Stop: the turn's text, with the session's state settled as after spooling."""
    with SessionTurns(home, session) as kept:
        text = conversation_text(kept.whole_turn(transcript, reply))
        kept.settle()
    return text


def keep(home: Path, session: str, prompt: str) -> None:
    with SessionTurns(home, session) as kept:
        kept.keep_prompt(prompt)


def test_with_no_transcript_the_turn_is_the_prompt_and_the_reply(tmp_path: Path) -> None:
    keep(tmp_path, "s", PROMPT)
    assert turn_text(tmp_path, "s", [], REPLY) == f"User: {PROMPT}\n\nAssistant: {REPLY}"
    assert turn_text(tmp_path, "s", [], None) == ""  # the prompt was used


def test_a_transcript_in_time_adds_what_lies_between_and_repeats_nothing(tmp_path: Path) -> None:
    keep(tmp_path, "s", PROMPT)
    transcript = [
        Turn("user", PROMPT),
        Turn("assistant", "Let me check the deploy config first."),
        Turn("assistant", REPLY),
    ]
    assert turn_text(tmp_path, "s", transcript, REPLY) == conversation_text(transcript)


def test_lines_a_lagging_transcript_shows_later_are_dropped_once(tmp_path: Path) -> None:
    keep(tmp_path, "s", PROMPT)
    turn_text(tmp_path, "s", [], REPLY)
    keep(tmp_path, "s", "Thanks. Also: staging restores every Monday.")
    late = [
        Turn("user", PROMPT),
        Turn("assistant", REPLY),
        Turn("user", "Thanks. Also: staging restores every Monday."),
        Turn("assistant", "Noted."),
    ]
    assert turn_text(tmp_path, "s", late, "Noted.") == conversation_text(late[2:])
    # Owed once: the same words said again later are a new turn.
    again = [Turn("user", PROMPT), Turn("assistant", REPLY)]
    assert turn_text(tmp_path, "s", again, REPLY) == conversation_text(again)


def test_a_partial_transcript_gets_the_prompt_before_and_the_reply_after(tmp_path: Path) -> None:
    keep(tmp_path, "s", PROMPT)
    partial = [Turn("assistant", "Let me check the deploy config first.")]
    text = turn_text(tmp_path, "s", partial, REPLY)
    assert text == conversation_text([Turn("user", PROMPT), *partial, Turn("assistant", REPLY)])


def test_commands_and_repeats_are_not_kept_as_prompts(tmp_path: Path) -> None:
    for prompt in ("/compact", "/review now", "<command-name>/clear</command-name>", "  "):
        keep(tmp_path, "s", prompt)
    keep(tmp_path, "s", PROMPT)
    keep(tmp_path, "s", PROMPT)  # a retried hook
    assert turn_text(tmp_path, "s", [], None) == f"User: {PROMPT}"


def test_a_damaged_state_file_is_a_fresh_session(tmp_path: Path) -> None:
    keep(tmp_path, "s", PROMPT)
    [state] = (tmp_path / "spool" / "sessions").glob("*.json")
    state.write_text("{not json")
    assert turn_text(tmp_path, "s", [], REPLY) == f"Assistant: {REPLY}"


def test_sessions_untouched_for_a_month_are_forgotten(tmp_path: Path) -> None:
    keep(tmp_path, "old", PROMPT)
    keep(tmp_path, "new", PROMPT)
    folder = tmp_path / "spool" / "sessions"
    month_ago = time.time() - 31 * 86_400
    os.utime(folder / "old.json", (month_ago, month_ago))
    assert prune_sessions(tmp_path) == 1
    assert sorted(path.name for path in folder.glob("*.json")) == ["new.json"]
