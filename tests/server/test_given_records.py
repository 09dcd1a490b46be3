"""The pre hook through the service keeps its record (answered afresh or from the
context cache) after it answers; `cortex-tui given` reads it back. Real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from cortex_tui.engine.remote import RemoteEngine
from cortex_tui.models import MemoryDraft
from tests.given.test_recorded_surfaces import FACTS, GITHUB_TOKEN, context_of
from tests.server.test_service import prompt_event, run, wait_for


def test_each_prompt_through_the_service_is_recorded_as_it_was_given(
    service_home: Path, remote: RemoteEngine
) -> None:
    for fact in FACTS:
        remote.remember(MemoryDraft(content=fact))
    prompt = f"which port does the atlas API use? my token is {GITHUB_TOKEN}"
    first = run(service_home, "--hook", "pre", stdin=prompt_event(prompt, "s-42"))
    again = run(service_home, "--hook", "pre", stdin=prompt_event(prompt, "s-42"))  # cached
    given = context_of(first.stdout)
    assert "port 8443" in given and context_of(again.stdout) == given

    wait_for(lambda: len(remote.given.records(session="s-42")) == 2)
    for record in remote.given.records(session="s-42"):
        assert record.agent == "claude" and record.trigger == "prompt"
        assert record.context == given
        assert GITHUB_TOKEN not in record.prompt and "[secret: GitHub token]" in record.prompt
        recalled = [memory for memory in record.given if memory.block == "recalled"]
        assert recalled and all(memory.breakdown is not None for memory in recalled)
        assert all(memory.short_id in given for memory in record.given)
        assert recalled[0].rank == 1
    for path in (service_home / "injections").iterdir():
        assert GITHUB_TOKEN.encode() not in path.read_bytes()

    shown = run(service_home, "given", "--session", "s-4")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("session s-42  claude")
    assert shown.stdout.count("which port does the atlas API use?") == 2
    assert "The atlas API listens on port 8443" in shown.stdout
    assert "1. " in shown.stdout and "tokens" in shown.stdout
    explained = run(service_home, "given", "--limit", "1", "--explain")
    assert "relevance" in explained.stdout and "final" in explained.stdout
    as_json = json.loads(run(service_home, "given", "--json").stdout)
    assert [turn["session"] for turn in as_json] == ["s-42", "s-42"]
    assert as_json[0]["given"][0]["breakdown"]["signals"]["relevance"]


def test_given_refuses_a_bad_limit_in_one_line(service_home: Path) -> None:
    result = run(service_home, "given", "--limit", "0")
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0 and "--limit" in result.stderr
    empty = run(service_home, "given", "--session", "nothing-like-it")
    assert empty.returncode == 0 and "no context has been given yet" in empty.stdout
