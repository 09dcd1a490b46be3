"""The real OpenClaw (npm, pinned, on Node 24) with cortex-tui wired in as a person wires
it: `cortex-tui openclaw install`, then `openclaw agent --local` turns in a git project,
the model replaced by the stand-in on 127.0.0.1. What the tests read is what the model
was sent, and what the store holds after."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import json5
import pytest

from cortex_tui.agent_turn.agents.openclaw.install import PLUGIN_ID
from cortex_tui.agent_turn.agents.skill.install import SKILL_NAME
from tests.agents.conftest import wait_for
from tests.agents.cortex_cli import memories, spool_pending
from tests.agents.model_standin import ModelStandIn, Text
from tests.agents.openclaw import OpenClaw
from tests.agents.test_claude_code import injected

DECISION = (
    "Decision for the record: from now on harbor deploys with Argo CD instead of Flux, "
    "and Kwame owns the Argo CD setup."
)
RULE = "Never deploy harbor on a Friday."
PORT = "The harbor API listens on port 8443."


def captured_turns(openclaw: OpenClaw) -> list[str]:
    """The key of each turn the service captured, in order, from its log."""
    log = Path(openclaw.env["CORTEX_HOME"]) / "logs" / "service.log"
    return re.findall(r"captured turn (\w+):", log.read_text())


def test_three_turns_of_a_session_each_get_their_memories_and_are_captured_once(
    openclaw: OpenClaw, model: ModelStandIn
) -> None:
    openclaw.cortex("openclaw", "install")
    openclaw.cortex("remember", "--project", "harbor", "--type", "rule", RULE)
    openclaw.cortex("remember", "--project", "harbor", PORT)
    model.script = [Text("Noted."), Text("Port 8443."), Text("Kwame does.")]

    first = openclaw.turn(DECISION)
    assert first.code == 0 and first.reply == "Noted."
    assert RULE in injected(model.requests[0])  # the session's standing rules, first prompt
    wait_for(lambda: memories(openclaw, "Kwame"), "the decision to be captured")

    second = openclaw.turn("Which port does the harbor API listen on?")
    assert second.reply == "Port 8443."
    assert PORT in injected(model.requests[1])

    third = openclaw.turn("Who owns the Argo CD setup these days?")
    assert third.reply == "Kwame does."
    context = injected(model.requests[2])
    assert "Kwame owns the Argo CD setup" in context  # said in the first turn
    assert "Argo CD instead of Flux" in context

    wait_for(lambda: len(captured_turns(openclaw)) == 3, "the three turns to be captured")
    wait_for(lambda: spool_pending(openclaw) == 0, "the capture to finish")
    turns = captured_turns(openclaw)
    assert len(set(turns)) == 3  # each turn once, though every event carried the history
    [decision] = memories(openclaw, "Kwame")
    assert decision["reinforced_count"] == 0  # not seen again in the later turns
    assert decision["session_id"] == "harbor-session"


@pytest.fixture
def hung_service(openclaw: OpenClaw) -> Iterator[None]:
    """A socket where the service's should be, that takes connections and never answers."""
    cortex_home = Path(openclaw.env["CORTEX_HOME"])
    cortex_home.mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(cortex_home / "cortex.sock"))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield
    stop.set()
    listener.close()
    for connection in held:
        connection.close()


def test_a_hung_engine_costs_the_turn_its_memories_never_the_turn(
    openclaw: OpenClaw, model: ModelStandIn, hung_service: None
) -> None:
    openclaw.cortex("openclaw", "install", "--recall-timeout-ms", "2500")
    model.script = [Text("Deploying on Monday then.")]
    turn = openclaw.turn("Can we deploy harbor today?")
    assert turn.code == 0 and turn.reply == "Deploying on Monday then."
    assert "<cortex_memories>" not in model.requests[0].text
    log = (Path(openclaw.env["CORTEX_HOME"]) / "logs" / "hooks.log").read_text()
    assert re.search(r"openclaw plugin: pre failed after \d+ ms", log)


def test_a_missing_engine_costs_the_turn_its_memories_never_the_turn(
    openclaw: OpenClaw, model: ModelStandIn, tmp_path: Path
) -> None:
    gone = tmp_path / "uninstalled" / "cortex-tui"
    openclaw.cortex("openclaw", "install", "--command", str(gone))
    model.script = [Text("Sure.")]
    turn = openclaw.turn("Please keep using pnpm in harbor.")
    assert turn.code == 0 and turn.reply == "Sure."
    assert "<cortex_memories>" not in model.requests[0].text
    log = (Path(openclaw.env["CORTEX_HOME"]) / "logs" / "hooks.log").read_text()
    assert "pre failed after" in log and "ENOENT" in log
    assert "post failed after" in log


def test_install_and_uninstall_keep_the_persons_config_and_openclaw_accepts_both(
    openclaw: OpenClaw,
) -> None:
    theirs = openclaw.config_file.read_text()
    commented = (
        "// the person's own config\n"
        + theirs.rstrip()[:-1]
        + (',\n  plugins: { entries: { "memory-core": { enabled: true } } },\n}\n')
    )
    openclaw.config_file.write_text(commented)

    said = openclaw.cortex("openclaw", "install").stdout
    assert "comments are not in the new file" in said
    openclaw.openclaw("config", "validate")
    inspected = json.loads(
        openclaw.openclaw("plugins", "inspect", PLUGIN_ID, "--runtime", "--json").stdout
    )
    hooks = {hook["name"] for hook in _find(inspected, "typedHooks")}
    assert {"before_prompt_build", "agent_end"} <= hooks
    assert openclaw.cortex("openclaw", "install").stdout.strip().endswith("already installed")
    backup = openclaw.config_file.with_name("openclaw.json.cortex-tui.bak")
    assert backup.read_text() == commented

    openclaw.cortex("openclaw", "install", "--uninstall")
    openclaw.openclaw("config", "validate")
    assert json.loads(openclaw.config_file.read_text()) == json5.loads(commented)


def test_the_skill_is_installed_where_openclaw_reads_it_and_offered_to_the_model(
    openclaw: OpenClaw, model: ModelStandIn
) -> None:
    openclaw.cortex("skill", "install", "--agent", "openclaw")
    listed = openclaw.openclaw("skills", "list", "--json").stdout
    [skill] = [s for s in _find(json.loads(listed), "skills") if s.get("name") == SKILL_NAME]
    assert skill["description"].startswith("Long-term memory across sessions with cortex-tui.")
    assert skill["eligible"] and skill["modelVisible"]
    openclaw.turn("What do you know about harbor?")
    assert SKILL_NAME in model.requests[0].text


def _find(data: Any, key: str) -> list[dict[str, Any]]:
    """The list under `key`, wherever it sits in OpenClaw's JSON."""
    if isinstance(data, dict):
        if isinstance(data.get(key), list):
            return list(data[key])
        for value in data.values():
            if found := _find(value, key):
                return found
    if isinstance(data, list):
        for value in data:
            if found := _find(value, key):
                return found
    return []


def test_sync_reads_openclaws_own_session_store_and_shares_turns_with_the_plugin(
    openclaw: OpenClaw, model: ModelStandIn
) -> None:
    model.script = [Text("Noted."), Text("Understood.")]
    openclaw.turn(DECISION)  # no plugin yet: only OpenClaw's store has the turn
    agents = str(openclaw.home / ".openclaw" / "agents")
    first = json.loads(openclaw.cortex("sync", agents, "--json").stdout)
    assert first["spooled"] == 1
    [decision] = memories(openclaw, "Kwame")
    assert decision["session_id"] == "harbor-session"
    assert decision["project"] == "harbor"  # the agent's workspace, from the session

    openclaw.cortex("openclaw", "install")
    openclaw.turn(RULE)  # the plugin hands this one over
    wait_for(lambda: memories(openclaw, "Friday"), "the plugin's turn to be captured")
    again = json.loads(openclaw.cortex("sync", agents, "--json").stdout)
    assert again["spooled"] == 0  # the plugin took it: sync does not take it again
