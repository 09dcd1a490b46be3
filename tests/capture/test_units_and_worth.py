"""Who said a sentence, where it stood, and the learned score that weighs it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib import resources

import pytest

from cortex_tui.capture.heuristic import extract_heuristic, readings
from cortex_tui.capture.units import sentences, units
from cortex_tui.capture.worth import FEATURE_NAMES, WorthModel, shipped_model
from cortex_tui.models import MemoryType

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def _every_sentence(per_turn: int) -> WorthModel:
    """A score every sentence reaches: what is kept is up to the per-turn cap."""
    return WorthModel(dict.fromkeys(FEATURE_NAMES, 0.0), 5.0, 0.5, per_turn=per_turn)


def _no_sentence() -> WorthModel:
    """A score no sentence reaches: what is kept is what is kept outright."""
    return WorthModel(dict.fromkeys(FEATURE_NAMES, 0.0), -5.0, 0.5, per_turn=3)


def test_each_sentence_knows_who_said_it_and_which_turn() -> None:
    text = (
        "User: Use pnpm here.\n\nNot npm, ever.\n\n"
        "Assistant: Switched the scripts to pnpm.\n\n"
        "User: Now the docs.\n\nAssistant: You're welcome."
    )
    found = [(u.speaker, u.turn, u.text) for u in units(text)]
    assert found == [
        ("user", 0, "Use pnpm here."),
        ("user", 0, "Not npm, ever."),
        ("assistant", 0, "Switched the scripts to pnpm."),
        ("user", 1, "Now the docs."),
        ("assistant", 1, "You're welcome."),
    ]


def test_text_that_is_no_ones_turn_has_no_speaker() -> None:
    assert {u.speaker for u in units("The API listens on port 8080.\n\nIt uses Postgres.")} == {
        "unknown"
    }


def test_a_role_word_in_lower_case_is_not_a_new_speaker() -> None:
    [unit] = units("User: the log line said\nassistant: crashed at boot")
    assert unit.speaker == "user"


def test_sentences_remember_their_heading_and_place() -> None:
    text = "Assistant: Here is what happened.\n\n## Root cause\n\nThe cache key ignored the locale."
    first, second = units(text)
    assert (first.heading, first.index, first.of) == ("", 0, 2)
    assert (second.heading, second.index, second.of) == ("Root cause", 1, 2)


def test_terminal_boxes_and_traceback_frames_are_no_sentences() -> None:
    text = (
        "Assistant: │ models  Manage available LLM models. │\n\n"
        'File "/srv/app/.venv/lib/python3.12/site-packages/anyio/run.py", line 986, in run\n\n'
        "The server reads its port from `PORT`."
    )
    assert [u.text for u in units(text)] == ["The server reads its port from `PORT`."]


def test_scripts_without_spaces_are_cut_at_their_own_full_stops() -> None:
    assert sentences("配置放在 config.yaml 里。测试用 pytest 运行！好的") == [
        "配置放在 config.yaml 里。",
        "测试用 pytest 运行！",
        "好的",
    ]


def test_a_sentence_in_a_script_without_spaces_is_long_enough_to_keep() -> None:
    # Four words of English would be ~8 characters of Chinese: a rule the person gave
    # must not be dropped as "too short" for having no spaces.
    text = "User: 以后所有提交信息都必须用中文写。"
    assert [r.sentence for r in readings(text, now=NOW)] == ["以后所有提交信息都必须用中文写。"]


def test_the_persons_outright_rule_is_kept_in_a_long_turn_of_findings() -> None:
    findings = " ".join(
        f"The `worker{n}` queue drains into `shard{n}` through `/srv/queue/{n}.sock` on port 90{n}."
        for n in range(8)
    )
    text = (
        f"User: Never run migrations against the production database from a laptop.\n\n"
        f"Assistant: {findings}"
    )
    kept = extract_heuristic(text, now=NOW)
    rules = [c for c in kept if c.type is MemoryType.RULE]
    assert [c.content for c in rules] == [
        "Never run migrations against the production database from a laptop."
    ]
    assistant = [c for c in kept if c.type is not MemoryType.RULE]
    assert len(assistant) <= shipped_model().per_turn


def test_the_assistants_narration_is_never_kept() -> None:
    text = (
        "User: please fix the flaky login test\n\n"
        "Assistant: Let me look at the test first. I'll run it a few times. "
        "I've updated the fixture. The test passes now. Let me know if you need anything else."
    )
    assert extract_heuristic(text, now=NOW) == []


def test_each_turn_keeps_at_most_the_models_share() -> None:
    model = _every_sentence(per_turn=1)
    one_turn = "User: where is config read?\n\nAssistant: " + " ".join(
        f"The `svc{n}` service reads `/etc/svc{n}.toml` at start." for n in range(4)
    )
    assert len(extract_heuristic(one_turn, now=NOW, model=model)) == 1
    two_turns = one_turn + "\n\n" + one_turn.replace("svc", "job")
    assert len(extract_heuristic(two_turns, now=NOW, model=model)) == 2


def test_a_threshold_no_sentence_reaches_keeps_nothing_of_a_conversation() -> None:
    model = _no_sentence()
    text = (
        "Assistant: The `api` service listens on port 8080 behind nginx. "
        "The `worker` service uses Redis 7 for its queue."
    )
    assert extract_heuristic(text, now=NOW, model=model) == []
    # The same sentences as a note are judged by the cue rules alone.
    assert len(extract_heuristic(text.removeprefix("Assistant: "), now=NOW, model=model)) == 2


def test_the_shipped_weights_cover_every_feature_and_nothing_else() -> None:
    raw = json.loads(resources.files("cortex_tui.capture").joinpath("worth.json").read_text())
    assert set(raw["weights"]) == set(FEATURE_NAMES)
    model = shipped_model()
    assert 0 < model.threshold < 1 and model.per_turn >= 1


def test_the_persons_rule_in_another_language_is_kept_as_a_rule() -> None:
    text = (
        "User: La configuration est externalisée, jamais de valeurs en dur dans le code.\n\n"
        "Assistant: Compris."
    )
    [candidate] = extract_heuristic(text, now=NOW)
    assert candidate.type is MemoryType.RULE
    assert "jamais de valeurs en dur" in candidate.content


def test_a_pasted_log_is_no_sentence() -> None:
    text = (
        "User: it still fails:\n"
        'INFO: 10.0.0.7:19674 - "GET /auth/me HTTP/1.1" 403 Forbidden\n'
        "2026-01-02 10:00:01 server started on port 80\n"
        "ValueError: the model name is not in the catalogue\n"
        "(venv) dev@box:~/app$ uv run main.py\n"
        "The client must show a 403 in the interface instead of failing silently."
    )
    assert [u.text for u in units(text)] == [
        "It still fails:",
        "The client must show a 403 in the interface instead of failing silently.",
    ]


def test_a_turn_that_says_the_same_thing_twice_keeps_it_once() -> None:
    text = (
        "Assistant: The problem is that port 8090 is serving HTTP (ttyd) but the browser is "
        "trying to connect with HTTPS.\n\n"
        "The issue is that port 8090 is serving plain HTTP but your browser is trying HTTPS."
    )
    model = _every_sentence(per_turn=3)
    assert len(extract_heuristic(text, now=NOW, model=model)) == 1
    # The same sentence with another value is another fact.
    other = text.replace("plain HTTP", "plain HTTP on 8091").replace(
        "port 8090 is serving plain", "it is serving plain"
    )
    assert len(extract_heuristic(other, now=NOW, model=model)) == 2


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("No, use pnpm here, not npm.", "Use pnpm here, not npm."),
        ("Actually, the staging API is on port 8443.", "The staging API is on port 8443."),
        ("That's wrong: the cron job runs at 02:00 UTC.", "The cron job runs at 02:00 UTC."),
    ],
)
def test_the_persons_correction_becomes_a_rule(said: str, kept: str) -> None:
    turn = f"User: {said}\n\nAssistant: " + " ".join(
        f"The `worker{n}` queue drains into `/srv/queue/{n}.sock`." for n in range(6)
    )
    [rule] = [c for c in extract_heuristic(turn, now=NOW) if c.type is MemoryType.RULE]
    assert rule.content == kept


def test_the_assistant_saying_no_is_no_correction() -> None:
    model = _no_sentence()
    text = (
        "Assistant: No, the staging API listens on port 8443. "
        "The `worker` service uses Redis 7 for its queue."
    )
    assert extract_heuristic(text, now=NOW, model=model) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I prefer pytest fixtures over setUp.", "The user prefers pytest fixtures over setUp."),
        ("I'd rather keep builds out of git.", "The user would rather keep builds out of git."),
        ("I really like short commit messages.", "The user really likes short commit messages."),
        ("Priya prefers async code reviews.", "Priya prefers async code reviews."),
    ],
)
def test_the_persons_preference_is_said_of_the_user(said: str, kept: str) -> None:
    [candidate] = extract_heuristic(f"User: {said}", now=NOW)
    assert candidate.type is MemoryType.PREFERENCE
    assert candidate.content == kept


def test_what_is_told_in_brief_is_kept_as_the_rules_read_it() -> None:
    nothing = _no_sentence()
    told = "User: Standup moved to 10:00 on Mondays.\n\nAssistant: Noted."
    assert [c.content for c in extract_heuristic(told, now=NOW, model=nothing)] == [
        "Standup moved to 10:00 on Mondays."
    ]
    answered = "User: where do the billing logs go?\n\nAssistant: Billing logs are shipped to Loki."
    assert [c.content for c in extract_heuristic(answered, now=NOW, model=nothing)] == [
        "Billing logs are shipped to Loki."
    ]


def test_a_pasted_specification_is_weighed_not_kept_whole() -> None:
    nothing = _no_sentence()
    spec = "User: " + " ".join(
        f"The `module{n}` package exports `handler{n}` from `src/module{n}.py`." for n in range(6)
    )
    assert extract_heuristic(spec, now=NOW, model=nothing) == []
