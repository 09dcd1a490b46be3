"""The real Claude Code (npm, pinned) with cortex-tui wired in as a person wires it:
`hook install`, `mcp install`, then `claude -p` in a git project, the model replaced by
the stand-in on 127.0.0.1. What the tests read is what the model was sent."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from cortex_tui.bench.cold_start import busy_cores
from cortex_tui.clients import local_service
from tests.agents.claude_code import ClaudeCode
from tests.agents.conftest import wait_for
from tests.agents.cortex_cli import memories, spool_pending
from tests.agents.model_standin import ModelStandIn, Request, Text, ToolCall
from tests.privacy.leaks import files_holding

DECISION = (
    "Decision for the record: from now on harbor deploys with Argo CD instead of Flux, "
    "and Kwame owns the Argo CD setup."
)


def injected(request: Request, event: str = "") -> str:
    """The memory blocks our hooks put in what the model was sent; with `event` (its
    label, e.g. "SessionStart hook additional context"), the blocks of that event's
    last context alone."""
    text = request.text
    if event:
        at = text.rfind(event)
        assert at >= 0, f"no {event!r} in the model's request"
        text = re.split(r"(?<=</cortex_memories>)(?!\\n<cortex_memories>)", text[at:])[0]
    return "\n".join(re.findall(r"<cortex_memories>.*?</cortex_memories>", text))


def as_sent(request: Request, event: str) -> str:
    """The event's memory blocks as the model read them: `Request.text` holds the
    request as JSON, each block's newlines escaped (`injected` joins blocks with a
    newline of its own)."""
    blocks = injected(request, event).split("\n")
    return "\n".join(str(json.loads(f'"{block}"')) for block in blocks)


def test_the_first_prompt_of_a_session_gets_memories_while_a_busy_machine_starts_the_service(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("hook", "install")
    fact = "Harbor deploys with Argo CD and Kwame owns the Argo CD setup."
    claude.cortex("remember", "--project", "harbor", fact)
    rule = "Never deploy harbor on a Friday."
    claude.cortex("remember", "--project", "harbor", "--type", "rule", rule)
    cortex_home = Path(claude.env["CORTEX_HOME"])
    assert local_service.status(cortex_home) is None  # cold: nothing serves the store
    with busy_cores(2):  # a laptop compiling, or running tests
        claude.run("Who owns the Argo CD setup these days?")
    given = injected(model.requests[0], "UserPromptSubmit hook additional context")
    assert "Kwame owns the Argo CD setup" in given
    assert rule in given  # the standing context the session's start could not give


def test_a_prompt_nothing_bears_on_is_sent_no_memories_and_one_that_needs_them_is(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("hook", "install")
    facts = [
        "Harbor deploys with Argo CD and Kwame owns the Argo CD setup.",
        "The harbor API listens on port 8443 behind the ingress.",
        "Harbor's staging database is restored from the nightly snapshot at 02:00 UTC.",
    ]
    for fact in facts:
        claude.cortex("remember", "--project", "harbor", fact, daemon=True)
    claude.run("Write a limerick about a cat who loves coffee.")
    assert "<cortex_memories>" not in model.requests[0].text
    model.requests.clear()
    claude.run("Which port does the harbor API listen on behind the ingress?")
    assert "port 8443" in injected(model.requests[0], "UserPromptSubmit hook additional context")
    shown = json.loads(claude.cortex("given", "--json", daemon=True).stdout)
    limerick = next(turn for turn in shown if turn["prompt"].startswith("Write a limerick"))
    assert limerick["outcome"] == "nothing bore on it" and limerick["given"] == []
    assert len(limerick["held_back"]) == len(facts)


def test_a_decision_stated_in_one_session_is_in_the_next_sessions_request(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("hook", "install")
    model.script = [Text("Noted.")]  # the reply does not repeat the decision
    claude.run(DECISION)
    wait_for(lambda: memories(claude, "Kwame"), "the decision to be captured")
    model.requests.clear()
    claude.run("Who owns the Argo CD setup?")
    context = injected(model.requests[0])
    assert "Kwame owns the Argo CD setup" in context
    assert "Argo CD instead of Flux" in context


def test_a_detail_said_in_passing_reaches_the_next_sessions_request_as_a_dated_quote(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    """Capture keeps no memory of it; the turn archive keeps what was said."""
    claude.cortex("hook", "install")
    model.script = [Text("I profiled it: most of the time goes to the index rebuild.")]
    claude.run(
        "Can you look at why the nightly import is slow? Hmm, maybe it is the Marrowglen "
        "fixture, the one that seeds forty thousand rows before each run."
    )
    wait_for(lambda: "1 turn" in claude.cortex("sessions", daemon=True).stdout, "the archive")
    assert memories(claude, "Marrowglen") == []
    model.requests.clear()
    claude.run("How many rows does the Marrowglen fixture seed before each nightly import?")
    given = as_sent(model.requests[0], "UserPromptSubmit hook additional context")
    (quote,) = [line for line in given.split("\n") if line.startswith("- [quote · ")]
    said = json.loads(claude.cortex("sessions", "--json", daemon=True).stdout)[-1]
    day = said["first_said"][:10]
    assert quote.startswith(f"- [quote · {day} · ") and "the user, in session " in quote
    assert "seeds forty thousand rows before each run" in quote


def test_a_key_pasted_in_a_prompt_never_becomes_a_memory_nor_reaches_the_next_session(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("hook", "install")
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzK3d9QpLx2"
    model.script = [Text("Noted.")]
    claude.run(f"Use this key for the staging deploys from now on: AWS_SECRET_ACCESS_KEY={key}")
    wait_for(lambda: memories(claude, "staging deploys"), "the turn to be captured")
    model.requests.clear()
    claude.run("Which key do the staging deploys use from now on?")
    context = injected(model.requests[0])
    assert "AWS_SECRET_ACCESS_KEY=[secret: AWS secret key]" in context
    assert key not in context
    assert key not in claude.cortex("export", daemon=True).stdout
    assert not files_holding(Path(claude.env["CORTEX_HOME"]), [key])


def test_a_session_start_gives_the_projects_rules_and_a_resume_gives_back_the_recalled_context(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    """And each context given is recorded exactly as the model was sent it."""
    claude.cortex("hook", "install")
    claude.cortex(
        "remember", "--project", "harbor", "--type", "rule", "Never deploy harbor on a Friday."
    )
    rollback = "To roll back harbor, run argocd app rollback harbor with the previous revision."
    claude.cortex("remember", "--project", "harbor", rollback, daemon=True)  # the service is up
    first = claude.run("How do we roll back a harbor deploy?")
    standing = injected(model.requests[0], "SessionStart hook additional context")
    assert "Never deploy harbor on a Friday." in standing
    assert "argocd app rollback" not in standing  # a fact is recalled, not standing
    sent = {
        "session start": as_sent(model.requests[0], "SessionStart hook additional context"),
        "prompt": as_sent(model.requests[0], "UserPromptSubmit hook additional context"),
    }

    model.requests.clear()
    claude.run("ok", "--resume", first.session_id)  # too short to recall for
    restored = injected(model.requests[0], "SessionStart hook additional context")
    assert "argocd app rollback harbor" in restored
    assert "Never deploy harbor on a Friday." in restored
    sent["resume"] = as_sent(model.requests[0], "SessionStart hook additional context")

    def records() -> dict[str, str]:
        shown = claude.cortex("given", "--json", "--session", first.session_id, daemon=True)
        return {turn["trigger"]: turn["context"] for turn in json.loads(shown.stdout)}

    wait_for(lambda: len(records()) == len(sent), "each context to be recorded")
    assert records() == sent


def test_a_stop_hook_that_keeps_claude_going_does_not_capture_the_turn_twice(
    claude: ClaudeCode, model: ModelStandIn, tmp_path: Path
) -> None:
    marker = tmp_path / "blocked-once"
    script = tmp_path / "review_once.py"
    script.write_text(
        "import json, pathlib, sys\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        "    marker.touch()\n"
        '    print(json.dumps({"decision": "block", "reason": "Check the plan once more."}))\n'
    )
    their_stop = {"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    settings = claude.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"Stop": [their_stop]}}))
    claude.cortex("hook", "install")
    going_on = "Checked. From now on the harbor staging database is restored every Monday."
    model.script = [Text("Noted."), Text(going_on)]
    claude.run(DECISION)
    assert marker.exists() and len(model.requests) == 2  # their hook kept Claude going
    wait_for(lambda: memories(claude, "Kwame"), "the decision to be captured")
    wait_for(lambda: spool_pending(claude) == 0, "the capture to finish")
    [stored] = memories(claude, "Kwame")
    assert stored["reinforced_count"] == 0  # captured once, not seen again
    assert not memories(claude, "Monday")  # the Stop with stop_hook_active made no turn


def test_the_model_uses_the_memory_tools_through_claude_codes_mcp_client(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("mcp", "install")
    fact = "The harbor staging cluster runs in eu-west-1."

    def forget_what_was_remembered(request: Request) -> ToolCall:
        remembered = _tool_answer(model.requests[1])
        return ToolCall(
            "mcp__cortex-tui__forget", {"memory_id": remembered["result"]["memory"]["id"]}
        )

    model.script = [
        ToolCall("mcp__cortex-tui__remember", {"content": fact, "project": "harbor"}),
        ToolCall("mcp__cortex-tui__recall", {"query": "where does harbor staging run?"}),
        ToolCall("mcp__cortex-tui__recall", {"query": ""}),  # a bad argument
        ToolCall("mcp__cortex-tui__conflicts", {}),
        forget_what_was_remembered,
        Text("Done with the memory tools."),
    ]
    session = claude.run("Try the memory tools.", "--allowedTools", "mcp__cortex-tui")
    assert session.reply == "Done with the memory tools."
    tools = model.requests[0].tools
    assert {f"mcp__cortex-tui__{name}" for name in ("recall", "remember", "forget")} <= set(tools)

    remembered = _tool_answer(model.requests[1])
    assert remembered["result"]["action"] == "created"
    recalled = _tool_answer(model.requests[2])
    assert recalled["results"][0]["memory"]["content"] == fact
    [refused] = model.requests[3].tool_results()
    assert refused.get("is_error") is True and "query" in json.dumps(refused["content"])
    listed = _tool_answer(model.requests[4])
    assert listed["groups"] == []
    forgotten = _tool_answer(model.requests[5])
    assert forgotten["status"] == "deleted"
    assert not memories(claude, "eu-west-1")


def _tool_answer(request: Request) -> dict[str, Any]:
    """The structured answer in the request's one tool result, which did not fail."""
    [result] = request.tool_results()
    assert not result.get("is_error"), result
    content = result["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    answer = json.loads(text)
    assert isinstance(answer, dict)
    return answer


def test_install_then_uninstall_leaves_claude_codes_files_as_they_were(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    settings = claude.home / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(git status)"]},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "true"}]}
            ]
        },
    }
    settings.write_text(json.dumps(theirs, indent=2) + "\n")
    mcp_file = claude.home / ".claude.json"
    servers = {"mcpServers": {"docs": {"type": "stdio", "command": "docs-server", "args": []}}}
    mcp_file.write_text(json.dumps(servers, indent=2) + "\n")
    before = {path: path.read_bytes() for path in (settings, mcp_file)}

    claude.cortex("hook", "install")
    claude.cortex("mcp", "install")
    assert all(path.read_bytes() != data for path, data in before.items())
    claude.cortex("hook", "install", "--uninstall")
    claude.cortex("mcp", "install", "--uninstall")
    assert {path: path.read_bytes() for path in before} == before

    session = claude.run("Hello there, which branch is this?")
    assert session.reply == "Done."
    [request] = model.requests
    assert "<cortex_memories>" not in request.text
    assert not any(tool.startswith("mcp__cortex-tui__") for tool in request.tools)
    assert not (Path(claude.env["CORTEX_HOME"]) / "logs" / "hooks.log").exists()


def test_the_skill_is_offered_to_the_model_by_claude_code(
    claude: ClaudeCode, model: ModelStandIn
) -> None:
    claude.cortex("skill", "install", "--agent", "claude")
    claude.run("What do you know about harbor?")
    assert "cortex-tui-memory" in model.requests[0].text  # listed among the skills
