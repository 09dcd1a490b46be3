"""`cortex-tui eval` on a sessions corpus: each repository's sessions replayed turn by turn
through the real hooks and service into a store of its own, then scored against their
labels (what later sessions are given: `test_given.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_tui.eval.claude_replay import turns_of
from cortex_tui.eval.sessions_dataset import SessionLabel
from tests.conftest import Cli

SESSION = "s-1"
TURNS = [
    ("Please always use pnpm in this repository, never npm.", "Understood, I switched to pnpm."),
    (
        "The API server listens on port 8443 behind the nginx gateway.",
        "Noted: port 8443 behind nginx.",
    ),
    (
        "We decided to move the unit tests from Jest to Vitest.",
        "Done, the tests pass now.",
    ),
]


def _line(kind: str, n: int, text: str) -> dict[str, Any]:
    content: Any = text if kind == "user" else [{"type": "text", "text": text}]
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg-{n}"
    return {
        "type": kind,
        "sessionId": SESSION,
        "uuid": f"{kind}-{n}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/somewhere/api",
        "timestamp": f"2025-08-01T10:0{n}:00Z",
        "message": message,
    }


def transcript_lines() -> list[str]:
    lines = [json.dumps({"type": "summary", "summary": "earlier work"})]
    for n, (prompt, reply) in enumerate(TURNS, 1):
        lines.append(json.dumps(_line("user", n, prompt)))
        tool = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}
        lines.append(
            json.dumps({**_line("user", n, ""), "message": {"role": "user", "content": [tool]}})
        )
        lines.append(json.dumps(_line("assistant", n, reply)))
    return lines


LABELS = [
    {
        "id": "L1",
        "type": "rule",
        "core": True,
        "turn": 1,
        "text": "Use pnpm, never npm.",
        "match": [["pnpm"]],
    },
    {
        "id": "L2",
        "type": "fact",
        "core": True,
        "turn": 2,
        "text": "The API server listens on port 8443.",
        "match": [["8443"]],
    },
    {
        "id": "L3",
        "type": "decision",
        "core": True,
        "turn": 3,
        "text": "The unit tests moved from Jest to Vitest.",
        "match": [["vitest"]],
    },
    {
        "id": "L4",
        "type": "environment",
        "core": True,
        "turn": 2,
        "text": "Staging runs on Kubernetes.",
        "match": [["kubernetes", "k8s"]],
    },
    {
        "id": "L5",
        "type": "fact",
        "core": False,
        "turn": 2,
        "text": "nginx is the gateway.",
        "match": [["nginx"]],
    },
]


def corpus(folder: Path, *, shipped: bool = True, labels: list[dict[str, Any]] = LABELS) -> Path:
    (folder / "labels").mkdir(parents=True)
    source = {
        "id": SESSION,
        "repo": "acme/api",
        "path": ".claude/projects/api/s-1.jsonl",
        "commit": "0" * 40,
        "licence": "MIT",
        "split": "dev",
        "kind_of_work": "web API",
        "shipped": shipped,
    }
    (folder / "corpus.json").write_text(
        json.dumps({"kind": "sessions", "name": "tiny", "sessions": [source]})
    )
    (folder / "labels" / f"{SESSION}.json").write_text(
        json.dumps({"id": SESSION, "labels": labels, "candidates": []})
    )
    if shipped:
        (folder / "transcripts").mkdir()
        (folder / "transcripts" / f"{SESSION}.jsonl").write_text("\n".join(transcript_lines()))
    return folder / "corpus.json"


def test_a_session_is_replayed_turn_by_turn_and_scored(cli: Cli, tmp_path: Path) -> None:
    path = corpus(tmp_path / "corpus")
    done = cli("eval", str(path), "--json")
    assert done.code == 0, done.err
    run = json.loads(done.out)["sessions"][0]
    base = run["variants"][0]
    figures = base["parts"]["all"]
    assert figures["prompts"] == 3
    assert (figures["core_found"], figures["core_labels"]) == (3, 4)
    assert figures["recall"] == 0.75
    assert figures["optional_found"] == 1
    assert figures["stored"] >= 3 and figures["matched"] >= 3
    assert figures["labels_by_type"]["environment"] == {"found": 0, "core": 1}
    session = base["sessions"][0]
    assert [m["label"] for m in session["missed"]] == ["L4"]
    assert session["missed"][0]["why"] == "not stored (said in turn 2)"
    assert session["hook_failures"] == []
    for memory in session["unmatched"]:  # anything else stored says why it was
        assert memory["why"]

    # The real post hook ran at each turn's end: the memories come from three turns.
    home = cli.home / "eval" / "tiny" / "base" / "acme-api" / "home"  # kept under --home
    listed = cli("--home", str(home), "list", "--json", "--limit", "100", home=False)
    memories = json.loads(listed.out)["memories"]
    assert {m["session_id"] for m in memories} == {SESSION}
    assert len({m["turn"] for m in memories}) == 3
    assert {m["project"] for m in memories} != {None}  # filed under the replay's repository


def test_text_report_lists_parts_misses_and_where_a_missing_transcript_is(
    cli: Cli, tmp_path: Path
) -> None:
    path = corpus(tmp_path / "corpus", shipped=False)
    done = cli("eval", str(path))
    assert done.code == 0, done.err
    assert "not run (no transcript here):" in done.out
    assert "git show 0000000000000000000000000000000000000000:.claude/projects" in done.out

    elsewhere = tmp_path / "fetched"
    elsewhere.mkdir()
    (elsewhere / f"{SESSION}.jsonl").write_text("\n".join(transcript_lines()))
    done = cli("eval", str(path), "--transcripts", str(elsewhere), "--only", "dev")
    assert done.code == 0, done.err
    assert "base           dev" in done.out and "75.0% (3/4)" in done.out
    assert "s-1 L4 [environment] Staging runs on Kubernetes." in done.out
    assert "not run" not in done.out


def test_variants_replay_into_stores_of_their_own(cli: Cli, tmp_path: Path) -> None:
    path = corpus(tmp_path / "corpus")
    done = cli("eval", str(path), "--json", "--variant", "minilm:embedder.kind=onnx")
    assert done.code == 0, done.err
    variants = json.loads(done.out)["sessions"][0]["variants"]
    assert [v["name"] for v in variants] == ["base", "minilm"]
    assert variants[1]["changes"] == {"embedder.kind": "onnx"}
    assert variants[0]["parts"]["all"]["core_found"] == 3
    # Each variant's service ran with its own settings: its store holds its embedder's
    # vectors (the base run's the hashing embedder's).
    stores = {}
    for name, kind in (("base", "hashing"), ("minilm", "onnx")):
        home = cli.home / "eval" / "tiny" / name / "acme-api" / "home"
        env = {"CORTEX_EMBEDDER__KIND": kind}
        health = cli("--home", str(home), "health", "--json", home=False, env=env)
        stores[name] = json.loads(health.out)["embedder"]
    assert stores["base"].startswith("hashing") and stores["minilm"].startswith("onnx")


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        ([{**LABELS[0], "type": "mood"}], "field labels.0.type"),
        ([{**LABELS[0], "match": [[]]}], "field labels.0.match"),
        ([LABELS[0], LABELS[0]], "a label id is used twice"),
        ([{**LABELS[0], "match": [["yarn"]]}], "do not match its own text"),
    ],
)
def test_a_bad_label_file_is_one_clear_line(
    cli: Cli, tmp_path: Path, labels: list[dict[str, Any]], problem: str
) -> None:
    path = corpus(tmp_path / "corpus", labels=labels)
    done = cli("eval", str(path))
    assert done.code == 2
    assert problem in done.err and len(done.err.strip().splitlines()) == 1


def test_only_names_a_session_or_a_part(cli: Cli, tmp_path: Path) -> None:
    path = corpus(tmp_path / "corpus")
    done = cli("eval", str(path), "--only", "held-out")
    assert done.code == 2 and "--only names no dataset called held-out" in done.err


def test_turns_are_cut_where_the_person_typed() -> None:
    lines = [line.encode() for line in transcript_lines()]
    turns = turns_of(lines)
    assert [t.prompt for t in turns] == [prompt for prompt, _ in TURNS]
    assert len(turns[0].preamble) == 1 and turns[1].preamble == []
    assert sum(len(t.preamble) + len(t.lines) for t in turns) == len(lines)


def test_a_keyword_matches_where_a_word_starts() -> None:
    label = SessionLabel.model_validate(
        {
            "id": "L",
            "type": "fact",
            "core": True,
            "turn": 1,
            "text": "Deploy reads config.toml.",
            "match": [["deploy"], ["config.toml", "settings file"]],
        }
    )
    assert label.matches("Deployments read CONFIG.TOML at start")
    assert label.matches("deploy reads the settings file")
    assert not label.matches("redeploy reads config.toml")
    assert not label.matches("deploy reads config.yaml")
