"""The write path's calls on the cases a new user found wrong, through `remember`,
`capture` and the post hook (real subprocesses, the embedded model), and the undo of a
supersession that should not have happened."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.hooks.test_hooks import hook

CASES = [
    pytest.param(
        "The request timeout for the payments API is 45 seconds.",
        "The payments API request timeout has been raised to 2 minutes.",
        "superseded",
        "raised to",
        id="quantity raised",
    ),
    pytest.param(
        "The image cache holds 500 MB.",
        "The image cache was reduced to 200 MB.",
        "superseded",
        "reduced to",
        id="quantity reduced",
    ),
    pytest.param(
        "Pull requests need one approval before merging.",
        "Going forward, pull requests need two approvals before merging.",
        "superseded",
        "going forward",
        id="policy going forward",
    ),
    pytest.param(
        "The billing service is written in Ruby.",
        "The billing service is written in Go.",
        "conflict",
        "ruby → go",
        id="exclusive attribute",
    ),
    pytest.param(
        "Standup is at 9:30 and lasts 15 minutes.",
        "Standup moved to 10:00.",
        "superseded",
        "moved",
        id="schedule moved",
    ),
]


@pytest.fixture
def onnx_cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home", embedder="onnx")


def _remember(cli: Cli, text: str) -> dict[str, Any]:
    r = cli("remember", text, "--project", "atlas", "--json")
    assert r.code == 0, r.err
    result: dict[str, Any] = json.loads(r.out)
    return result


@pytest.mark.parametrize(("old", "new", "action", "why"), CASES)
def test_remember_decides_the_case(
    onnx_cli: Cli, old: str, new: str, action: str, why: str
) -> None:
    first = _remember(onnx_cli, old)
    second = _remember(onnx_cli, new)
    assert second["action"] == action, second["reason"]
    assert why in second["reason"].lower()
    assert second["related"]["id"] == first["memory"]["id"]
    assert (second["judge"], second["close_call"]) == ("rules", None)
    [decision] = second["memory"]["decisions"]
    assert decision["action"] == action and decision["reason"] == second["reason"]
    assert decision["related_id"] == first["memory"]["id"]


def test_capture_decides_an_update_and_a_conflict(onnx_cli: Cli) -> None:
    _remember(onnx_cli, "The image cache holds 500 MB.")
    _remember(onnx_cli, "The billing service is written in Ruby.")
    r = onnx_cli(
        "capture",
        "--project",
        "atlas",
        "--user",
        "The image cache was reduced to 200 MB. The billing service is written in Go.",
        "--json",
    )
    assert r.code == 0, r.err
    results = {
        o["candidate"]["content"]: o["result"] for o in json.loads(r.out)["outcomes"] if o["result"]
    }
    assert {content: result["action"] for content, result in results.items()} == {
        "The image cache was reduced to 200 MB.": "superseded",
        "The billing service is written in Go.": "conflict",
    }, r.out
    reasons = {content: result["reason"] for content, result in results.items()}
    assert "'was reduced to'" in reasons["The image cache was reduced to 200 MB."]
    assert "Ruby → Go" in reasons["The billing service is written in Go."]


def test_post_hook_supersedes_a_moved_schedule(tmp_path: Path) -> None:
    """In its own process the hook leaves the pair model out (loading one is the
    service's job), so even a pair-model path that does not exist costs it nothing."""
    home = tmp_path / "home"
    cli = Cli(home, embedder="onnx")
    old = _remember(cli, "Standup is at 9:30 and lasts 15 minutes.")["memory"]["id"]
    root = tmp_path / "atlas"
    (root / ".git").mkdir(parents=True)
    transcript = tmp_path / "t.jsonl"
    turn = {"type": "user", "message": {"role": "user", "content": "Standup moved to 10:00."}}
    transcript.write_text(json.dumps(turn) + "\n")
    stop = {
        "hook_event_name": "Stop",
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": str(root),
        "stop_hook_active": False,
    }
    env = {"CORTEX_EMBEDDER__KIND": "onnx", "CORTEX_WRITE__PAIR_MODEL": str(tmp_path / "none")}
    r = hook(home, "post", json.dumps(stop), env=env)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    history = json.loads(cli("history", old, "--json").out)
    assert [m["content"] for m in history] == [
        "Standup is at 9:30 and lasts 15 minutes.",
        "Standup moved to 10:00.",
    ]
    assert history[0]["valid_to"] is not None and history[1]["valid_to"] is None


def test_a_wrong_supersession_is_undone(onnx_cli: Cli) -> None:
    old = _remember(onnx_cli, "The image cache holds 500 MB.")["memory"]
    new = _remember(onnx_cli, "The image cache was reduced to 200 MB.")
    assert new["action"] == "superseded"
    r = onnx_cli("undo", "--json")
    assert r.code == 0, r.err
    [undone] = json.loads(r.out)
    assert undone["action"] == "capture:supersede"
    assert undone["note"] == f"superseded: {new['reason']}"
    restored = json.loads(onnx_cli("get", old["id"], "--json").out)
    assert restored["valid_to"] is None and restored["superseded_by_id"] is None
    listed = json.loads(onnx_cli("list", "--project", "atlas", "--json").out)
    assert [m["content"] for m in listed["memories"]] == ["The image cache holds 500 MB."]


def test_a_rename_keeps_the_old_name_as_an_alias(onnx_cli: Cli) -> None:
    _remember(onnx_cli, "The orders service is called shopfront.")
    renamed = _remember(onnx_cli, "The shopfront service was renamed to storefront.")
    assert renamed["action"] == "superseded", renamed["reason"]
    assert renamed["renamed"] == ["shopfront", "storefront"]
    r = onnx_cli("entities", "show", "shopfront", "--json")
    assert r.code == 0, r.err
    center = json.loads(r.out)["center"]
    assert (center["name"], center["aliases"]) == ("storefront", ["shopfront"])
    assert center["memory_ids"] == [renamed["memory"]["id"]]


def test_the_reasons_read_in_every_text_view(onnx_cli: Cli) -> None:
    """`remember`, `history`, `conflicts`, `get` and `undo` each say why."""
    cache = _remember(onnx_cli, "The image cache holds 500 MB.")["memory"]["id"]
    reduced = onnx_cli("remember", "The image cache was reduced to 200 MB.", "--project", "atlas")
    assert reduced.code == 0, reduced.err
    assert reduced.out.splitlines()[1].startswith("  why: a change is announced ('was reduced to')")
    history = onnx_cli("history", cache)
    assert "    why: superseded: a change is announced ('was reduced to')" in history.out
    _remember(onnx_cli, "The billing service is written in Ruby.")
    go = _remember(onnx_cli, "The billing service is written in Go.")
    conflicts = onnx_cli("conflicts")
    assert f"      why: conflict: {go['reason']}" in conflicts.out
    shown = onnx_cli("get", go["memory"]["id"])
    assert "decisions:\n  2026-" in shown.out and f"conflict: {go['reason']}" in shown.out
    undone = onnx_cli("undo")
    assert undone.out.startswith(f"undid capture:conflict (conflict: {go['reason']}) from ")
