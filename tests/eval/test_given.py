"""`cortex-tui eval` on a sessions corpus with probes: a repository's sessions replayed into
one project as Claude Code fires its hooks, then each probe asked in a new session, and
what it was given scored against the label it needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Cli

REPO = "acme/api"
SESSIONS: dict[str, list[tuple[str, str | None]]] = {
    # (prompt, reply); a reply of None: the person interrupted the turn.
    "s-1": [
        ("Please always use pnpm in this repository, never npm.", "Understood, pnpm it is."),
        ("The API server listens on port 8443 behind the nginx gateway.", "Noted: 8443."),
        ("Staging runs on Kubernetes in the eu-west cluster, remember that.", None),
    ],
    "s-2": [
        ("We decided to move the unit tests from Jest to Vitest.", "Done, tests moved."),
        ("The release script scripts/release.sh tags the version and pushes it.", "Got it."),
    ],
}
COMPACTED_AFTER = ("s-2", 1)
"""The transcript compacts in this turn of this session."""


def _label(n: int, kind: str, turn: int, text: str, words: list[str]) -> dict[str, Any]:
    return {"id": f"L{n}", "type": kind, "core": True, "turn": turn, "text": text, "match": [words]}


LABELS = {
    "s-1": [
        _label(1, "rule", 1, "Use pnpm, never npm.", ["pnpm"]),
        _label(2, "fact", 2, "The API server listens on port 8443.", ["8443"]),
        _label(3, "environment", 3, "Staging runs on Kubernetes.", ["kubernetes"]),
    ],
    "s-2": [
        _label(1, "decision", 1, "The unit tests moved from Jest to Vitest.", ["vitest"]),
        _label(2, "procedure", 2, "scripts/release.sh tags and pushes a release.", ["release"]),
    ],
}
PROBES = [
    ("s-1", "L1", "I need lodash in the web package: what's the command to add it with pnpm?"),
    ("s-1", "L2", "Which port does the API server listen on behind nginx?"),
    ("s-1", "L3", "Where does staging run: Kubernetes or plain VMs?"),
    ("s-2", "L1", "Write a unit test for the date formatter with Vitest or Jest?"),
]
UNRELATED = [
    "How do I reverse a linked list in place in C?",
    "Write a limerick about a cat who loves coffee.",
    "What's the Pythagorean theorem?",
]


def _line(session: str, kind: str, n: int, text: str, **extra: Any) -> str:
    content: Any = text if kind == "user" else [{"type": "text", "text": text}]
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg-{session}-{n}"
    line = {
        "type": kind,
        "sessionId": session,
        "uuid": f"{session}-{kind}-{n}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/somewhere/api",
        "timestamp": f"2025-08-01T10:{n:02d}:00Z",
        "message": message,
        **extra,
    }
    return json.dumps(line)


def _transcript(session: str) -> str:
    lines = []
    for n, (prompt, reply) in enumerate(SESSIONS[session], 1):
        lines.append(_line(session, "user", n, prompt))
        if reply is None:
            lines.append(_line(session, "user", n, "[Request interrupted by user]"))
            continue
        lines.append(_line(session, "assistant", n, reply))
        if (session, n) == COMPACTED_AFTER:
            lines.append(json.dumps({"type": "system", "subtype": "compact_boundary"}))
            summary = "This session is being continued from a previous conversation."
            lines.append(_line(session, "user", 90 + n, summary, isCompactSummary=True))
    return "\n".join(lines)


def corpus(folder: Path, probes: dict[str, Any] | None = None) -> Path:
    for sub in ("labels", "transcripts", "probes"):
        (folder / sub).mkdir(parents=True)
    sources = [
        {
            "id": session,
            "repo": REPO,
            "path": f".claude/projects/api/{session}.jsonl",
            "commit": "0" * 40,
            "licence": "MIT",
            "split": "dev",
            "shipped": True,
        }
        for session in SESSIONS
    ]
    (folder / "corpus.json").write_text(
        json.dumps({"kind": "sessions", "name": "tiny", "sessions": sources})
    )
    for session, labels in LABELS.items():
        (folder / "labels" / f"{session}.json").write_text(
            json.dumps({"id": session, "labels": labels})
        )
        (folder / "transcripts" / f"{session}.jsonl").write_text(_transcript(session))
    probes = probes or {
        "repo": REPO,
        "probes": [{"session": s, "label": label, "prompt": p} for s, label, p in PROBES],
        "unrelated": [{"prompt": p} for p in UNRELATED],
    }
    (folder / "probes" / "acme-api.json").write_text(json.dumps(probes))
    return folder / "corpus.json"


def test_probes_are_asked_after_the_repository_replays_and_scored_on_what_was_given(
    cli: Cli, tmp_path: Path
) -> None:
    done = cli("eval", str(corpus(tmp_path / "corpus")), "--json")
    assert done.code == 0, done.err
    base = json.loads(done.out)["sessions"][0]["variants"][0]
    given = base["given"]
    whole = given["parts"]["all"]
    assert (whole["probes"], whole["unrelated"]) == (len(PROBES), len(UNRELATED))
    # Staging was said only in a turn the person interrupted: no Stop, never captured.
    missed = {(m["session"], m["label"]): m for m in given["missed"]}
    assert missed[("s-1", "L3")]["lost"] == "not stored"
    # What was captured reaches the later session that needs it.
    assert whole["given"] == len(PROBES) - len(missed)
    assert ("s-1", "L2") not in missed and ("s-2", "L1") not in missed
    assert whole["given_when_needed"] == round(whole["given"] / whole["probes"], 4)
    assert whole["block_precision"] == round(
        whole["probe_matching_lines"] / whole["probe_lines"], 4
    )
    # The relevance gate: a prompt nothing in the project bears on is given nothing.
    assert (whole["unrelated_given"], whole["given_for_nothing"]) == (0, 0.0)
    assert given["unrelated_given"] == []
    assert whole["probe_matching_lines"] >= whole["given"] > 0
    assert whole["tokens_a_prompt"] < whole["tokens_a_block"]
    assert set(given["sessions"]) == {"s-1", "s-2"}
    assert given["label_types"]["environment"]["given"] == 0

    # Both sessions captured into one project: the second's capture figures see the
    # first's memories, its own precision counts only what it stored.
    sessions = {s["session"]: s for s in base["sessions"]}
    assert sessions["s-1"]["core_found"] == 2 and sessions["s-2"]["core_found"] == 2


def test_the_replay_fires_hooks_as_claude_code_does(cli: Cli, tmp_path: Path) -> None:
    done = cli("eval", str(corpus(tmp_path / "corpus")), "--json")
    assert done.code == 0, done.err
    home = cli.home / "eval" / "tiny" / "base" / "acme-api" / "home"
    shown = cli("--home", str(home), "given", "--json", "--limit", "1000", home=False)
    records = json.loads(shown.out)
    triggers = [(r["session"], r["trigger"]) for r in reversed(records)]
    replayed = [t for t in triggers if not t[0].startswith("probe-")]
    # A session's start finds the service stopped since the session before: it starts
    # it for the first prompt and gives nothing, and says so; a compaction finds it up.
    starts = [r for r in reversed(records) if r["trigger"] == "session start"]
    missed = [r["session"] for r in starts if r.get("outcome") == "no service"]
    assert missed[:2] == ["s-1", "s-2"] and "probe-0001" in missed
    assert all(r["context"] == "" and r["prompt"] == "" for r in starts if r.get("outcome"))
    assert [t for t in replayed if t[1] != "session start"] == [
        ("s-1", "prompt"),
        ("s-1", "prompt"),
        ("s-1", "prompt"),
        ("s-2", "prompt"),
        ("s-2", "compact"),
        ("s-2", "prompt"),
    ]
    asked = len(PROBES) + len(UNRELATED)
    probes = [t for t in triggers if t[0].startswith("probe-")]
    assert [t for t in probes if t[1] == "prompt"] == [
        (f"probe-{n:04d}", "prompt") for n in range(1, asked + 1)
    ]
    started = {session for session, trigger in probes if trigger == "session start"}
    assert started == {f"probe-{n:04d}" for n in range(1, asked + 1)}
    # Each session's prompt was in the transcript when its hook ran: the compaction's
    # SessionStart recalled the session's last prompt.
    compact = next(r for r in records if r["trigger"] == "compact")
    assert compact["prompt"].startswith("We decided to move the unit tests")


def test_a_probe_for_a_label_that_is_not_core_is_refused(cli: Cli, tmp_path: Path) -> None:
    probes = {"repo": REPO, "probes": [{"session": "s-1", "label": "L9", "prompt": "hi"}]}
    done = cli("eval", str(corpus(tmp_path / "corpus", probes)))
    assert done.code == 2
    assert "probe for s-1 L9: not a core label" in done.err
    assert len(done.err.strip().splitlines()) == 1


def test_the_committed_probes_cover_every_core_label_once() -> None:
    folder = Path(__file__).resolve().parents[1] / "data" / "sessions"
    corpus_sessions = json.loads((folder / "corpus.json").read_text())["sessions"]
    for path in sorted((folder / "probes").glob("*.json")):
        probes = json.loads(path.read_text())
        sessions = [s["id"] for s in corpus_sessions if s["repo"] == probes["repo"]]
        core = {
            (s, label["id"])
            for s in sessions
            for label in json.loads((folder / "labels" / f"{s}.json").read_text())["labels"]
            if label["core"]
        }
        probed = [(p["session"], p["label"]) for p in probes["probes"]]
        assert sorted(probed) == sorted(core), path.name
        assert len(probes["unrelated"]) >= 25, path.name
    repos = {s["repo"] for s in corpus_sessions}
    assert len(list((folder / "probes").glob("*.json"))) == len(repos)
