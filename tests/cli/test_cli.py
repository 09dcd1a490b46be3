"""The CLI as a user runs it: a real subprocess on a real store."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import Cli


def test_remember_recall_explain_json_round_trip(cli: Cli) -> None:
    r = cli(
        "remember",
        "Never push directly to main in atlas",
        "--type",
        "rule",
        "--project",
        "atlas",
        "--tags",
        "git,review",
        "--json",
    )
    assert r.code == 0, r.err
    memory = json.loads(r.out)["memory"]
    assert memory["type"] == "rule" and memory["scope"] == "project"
    assert memory["tags"] == ["git", "review"]

    r = cli("recall", "push to main", "--project", "atlas", "--explain")
    assert r.code == 0, r.err
    assert "relevance" in r.out and "graph_proximity" in r.out and "final" in r.out
    # "main" and "push" are both in the memory: BM25 × a coverage of 2/2.
    assert "lexical   = BM25 1.000 × coverage 1.000" in r.out
    assert "type prior" not in r.out
    r = cli("recall", "the rules about main", "--explain", "--no-access-update")
    assert "type prior: the query names rule: those types get type 1, the others 0" in r.out

    r = cli("recall", "push to main", "--project", "atlas", "--json", "--no-access-update")
    data = json.loads(r.out)
    top = data["results"][0]
    assert top["memory"]["id"] == memory["id"]
    total = sum(s["contribution"] for s in top["breakdown"]["signals"].values())
    assert abs(total - top["breakdown"]["adjusted"]) < 1e-9
    assert data["context"].startswith("<cortex_memories>")

    r = cli("get", memory["id"][:8], "--json")
    assert json.loads(r.out)["id"] == memory["id"]


def test_update_creates_a_version_and_history_shows_it(cli: Cli) -> None:
    first = json.loads(cli("remember", "Postgres 15 in prod", "--json").out)["memory"]["id"]
    r = cli("update", first[:8], "--content", "Postgres 16 in prod", "--json")
    assert r.code == 0, r.err
    new = json.loads(r.out)
    assert new["supersedes_id"] == first
    chain = json.loads(cli("history", new["id"], "--json").out)
    assert [m["id"] for m in chain] == [first, new["id"]]
    listing = json.loads(cli("list", "--json").out)
    assert [m["id"] for m in listing["memories"]] == [new["id"]]
    listing = json.loads(cli("list", "--all-versions", "--json").out)
    assert listing["total"] == 2


def test_forget_search_stats_and_purge(cli: Cli) -> None:
    keep = json.loads(cli("remember", "The VPN needs a hardware token", "--json").out)
    gone = json.loads(cli("remember", "The old VPN used passwords", "--json").out)
    assert cli("forget", gone["memory"]["id"]).code == 0
    found = json.loads(cli("search", "VPN", "--json").out)
    assert [m["id"] for m in found["memories"]] == [keep["memory"]["id"]]
    stats = json.loads(cli("stats", "--json").out)
    assert stats["current"] == 1 and stats["deleted"] == 1
    r = cli("purge")
    assert r.code != 0 and "--yes" in r.err
    assert json.loads(cli("purge", "--yes", "--json").out) == {"purged": 1}


def test_export_import_round_trips_every_field(cli: Cli, tmp_path: Path) -> None:
    assert cli("demo", "load").code == 0
    out = tmp_path / "backup.jsonl"
    assert cli("export", "-o", str(out)).code == 0
    other = Cli(tmp_path / "other-home")
    r = other("import", str(out), "--json")
    assert r.code == 0, r.err
    report = json.loads(r.out)
    assert report["memories"] > 100 and report["entities"] > 20 and report["relations"] > 20
    again = tmp_path / "again.jsonl"
    assert other("export", "-o", str(again)).code == 0
    assert sorted(out.read_text().splitlines()) == sorted(again.read_text().splitlines())


def test_import_with_a_bad_line_imports_nothing(cli: Cli, tmp_path: Path) -> None:
    good = json.loads(cli("remember", "one good memory", "--json").out)["memory"]
    line = json.dumps({"kind": "memory", "data": good})
    bad = json.dumps({"kind": "memory", "data": {**good, "type": "opinion", "id": "x" * 36}})
    source = tmp_path / "in.jsonl"
    source.write_text(line.replace(good["id"], "1" * 8 + good["id"][8:]) + "\n" + bad + "\n")
    target = Cli(tmp_path / "target")
    r = target("import", str(source))
    assert r.code == 2
    assert r.err.startswith("cortex-tui: error: line 2: memory field type") and r.err[-1] == "\n"
    assert r.err.count("\n") == 1
    assert json.loads(target("stats", "--json").out)["total"] == 0
    r = target("import", str(source), "--skip-invalid", "--json")
    assert r.code == 0
    assert json.loads(r.out)["memories"] == 1


def test_bad_input_gets_one_line_and_nonzero_exit(cli: Cli) -> None:
    cases = [
        ("remember", "   "),
        ("remember", "x", "--type", "opinion"),
        ("remember", "x", "--confidence", "3"),
        ("recall", "x", "--limit", "0"),
        ("get", "ffffffff"),
        ("get", "ab"),
        ("recall", "x", "--profile", "missing"),
        ("recall", "x", "--as-of", "yesterday-ish"),
    ]
    for args in cases:
        r = cli(*args)
        assert r.code != 0, args
        assert r.err.count("\n") == 1 and "Traceback" not in r.err, (args, r.err)
        assert r.err.startswith("cortex-tui"), r.err


def test_invalid_weights_in_env_are_reported(cli: Cli) -> None:
    r = cli("stats", env={"CORTEX_RECALL__WEIGHTS__SIMILARITY": "lots"})
    assert r.code != 0
    assert "CORTEX_RECALL__WEIGHTS__SIMILARITY" in r.err and "Traceback" not in r.err


def test_store_owned_by_another_process_is_a_clear_error(cli: Cli) -> None:
    import subprocess
    import sys

    assert cli("remember", "something").code == 0
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys,time;from cortex_tui.config import load_settings;"
            "from cortex_tui.embed.hashing import HashingEmbedder;"
            "from cortex_tui.engine.open import open_engine;"
            f"e=open_engine(load_settings(__import__('pathlib').Path({str(cli.home)!r})),"
            "embedder=HashingEmbedder());print('ready',flush=True);time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        r = cli("stats")
        assert r.code != 0
        assert "in use by another process" in r.err and r.err.count("\n") == 1
    finally:
        holder.kill()
        holder.wait()


def test_embedder_mismatch_names_reembed(cli: Cli) -> None:
    assert cli("remember", "made with hashing").code == 0
    r = cli("stats", env={"CORTEX_EMBEDDER__KIND": "onnx"})
    assert r.code != 0 and "reembed" in r.err


def test_reembed_converts_the_store(cli: Cli) -> None:
    cli("remember", "The staging cluster resets on Sundays")
    r = cli("reembed", "--to", "onnx")
    assert r.code == 0, r.err
    # config.toml now names the new embedder, so no override is needed to open it.
    configured = Cli(cli.home, embedder=None)
    stats = json.loads(configured("stats", "--json").out)
    assert stats["embedder"].startswith("onnx:") and stats["current"] == 1
    r = configured("recall", "when is staging reset", "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["results"][0]["memory"]["content"].startswith("The staging")


def test_reembed_with_the_same_embedder_rebuilds_the_index(cli: Cli) -> None:
    """Vectors are kept and neighbour context is made anew (what a store made before
    neighbour context needs)."""
    for text in (
        "We decided to deploy atlas with Fly.io from now on.",
        "Priya Raman leads the atlas team since March.",
    ):
        assert cli("capture", "--session", "chat", "--user", text).code == 0
    before = json.loads(cli("recall", "atlas deploy and team", "--json", "--no-access-update").out)[
        "results"
    ]
    r = cli("reembed", "--to", "hashing")
    assert r.code == 0, r.err
    assert "rebuilt the index of 2 memories" in r.out
    after = json.loads(cli("recall", "atlas deploy and team", "--json", "--no-access-update").out)[
        "results"
    ]
    assert [x["memory"] for x in after] == [x["memory"] for x in before]
    contexts = {x["memory"]["turn"]: x["breakdown"]["context_cosine"] for x in after}
    assert contexts[0] is None and contexts[1] is not None


def test_help_is_fast_path(cli: Cli) -> None:
    r = cli("--help", home=False)
    assert r.code == 0 and "recall" in r.out and "eval" in r.out


def test_conflict_curation_from_the_command_line(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "home", embedder="onnx")
    a = json.loads(
        cli("remember", "Code freeze before a release starts on Wednesday.", "--json").out
    )
    b = json.loads(
        cli("remember", "Code freeze before a release starts on Thursday.", "--json").out
    )
    assert a["action"] == "created" and b["action"] == "conflict"
    groups = json.loads(cli("conflicts", "--json").out)
    assert len(groups) == 1 and len(groups[0]["members"]) == 2
    group = groups[0]["id"][:8]
    r = cli("resolve", group, "--keep", b["memory"]["id"][:8])
    assert r.code == 0, r.err
    assert json.loads(cli("conflicts", "--json").out) == []
    recall = json.loads(cli("recall", "when does code freeze start", "--json").out)
    assert [x["memory"]["id"] for x in recall["results"]] == [b["memory"]["id"]]
    r = cli("undo")
    assert r.code == 0 and "resolve" in r.out
    assert len(json.loads(cli("conflicts", "--json").out)) == 1
    r = cli("resolve", group, "--keep", "deadbeef")
    assert r.code != 0 and "not a member" in r.err and r.err.count("\n") == 1


def test_import_tolerates_a_bom_and_rejects_binary(cli: Cli, tmp_path: Path) -> None:
    good = json.loads(cli("remember", "kept across the move", "--json").out)["memory"]
    export = tmp_path / "bom.jsonl"
    export.write_bytes(b"\xef\xbb\xbf" + json.dumps({"kind": "memory", "data": good}).encode())
    other = Cli(tmp_path / "other")
    assert json.loads(other("import", str(export), "--json").out)["memories"] == 1
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    r = other("import", str(binary))
    assert r.code == 2 and "not UTF-8" in r.err and r.err.count("\n") == 1


def test_optimize_keeps_every_memory_recallable(cli: Cli) -> None:
    assert cli("demo", "load").code == 0
    query = ("recall", "how do we deploy to production", "--json", "--limit", "5")
    before = json.loads(cli(*query).out)["results"]
    current = json.loads(cli("stats", "--json").out)["current"]
    r = cli("optimize", "--json")
    assert r.code == 0 and json.loads(r.out)["seconds"] >= 0
    assert json.loads(cli("stats", "--json").out)["current"] == current > 100
    after = json.loads(cli(*query).out)["results"]
    assert len(before) == 5
    assert [x["memory"]["id"] for x in after] == [x["memory"]["id"] for x in before]


def test_paths_that_cannot_work_get_one_line_naming_the_fix(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    cases = [
        (("export", "-o", str(tmp_path / "missing" / "out.jsonl")), "does not exist; create it"),
        (("export", "-o", str(tmp_path)), "is a folder; give a file name"),
        (("import", str(fifo)), "is a named pipe, not a regular file"),
        (("import", "/dev/zero"), "is a character device, not a regular file"),
        (("capture", "--transcript", str(fifo)), "is a named pipe, not a regular file"),
        (("eval", str(fifo)), "is a named pipe, not a regular file"),
    ]
    for args, message in cases:
        r = cli(*args)
        assert (r.code, r.out) == (2, ""), args
        assert message in r.err and r.err.count("\n") == 1, (args, r.err)
    assert not (tmp_path / "missing").exists()


def test_invalid_utf8_in_arguments_and_stdin_is_stored_as_replacement_characters(
    cli: Cli,
) -> None:
    # What Python makes of the bytes b"caf\xff" on a command line: a lone surrogate.
    argument = os.fsdecode(b"the build cache lives in /srv/caf\xff")
    r = cli("remember", argument, "--json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["memory"]["content"] == "the build cache lives in /srv/caf\ufffd"
    r = cli("remember", "-", "--json", stdin_bytes=b"the deploy key sits in vault/k\xfe\xff")
    assert r.code == 0, r.err
    assert json.loads(r.out)["memory"]["content"] == "the deploy key sits in vault/k\ufffd\ufffd"


def test_an_imported_conversation_is_recalled_by_who_said_it(cli: Cli, tmp_path: Path) -> None:
    """Speakers come with an import; `recall --explain` says which turn the named one
    said, in the service-free process a fresh store gets."""
    turns = []
    for name, text in (("Gina", "I opened my dance studio"), ("Jon", "I opened a bakery")):
        memory = json.loads(cli("remember", text, "--json").out)["memory"]
        turns.append({"kind": "memory", "data": {**memory, "speaker": name}})
    export = tmp_path / "conversation.jsonl"
    export.write_text("\n".join(json.dumps(turn) for turn in turns), encoding="utf-8")
    other = Cli(tmp_path / "other")
    assert json.loads(other("import", str(export), "--json").out)["memories"] == 2
    r = other("recall", "what did Gina open", "--explain", "--no-access-update")
    assert r.code == 0, r.err
    assert r.out.count("graph prior: said by Gina, whom the query names") == 1
    results = json.loads(other("recall", "what did Gina open", "--json").out)["results"]
    by_speaker = {x["memory"]["speaker"]: x["breakdown"] for x in results}
    assert by_speaker["Gina"]["graph_speaker"] == "Gina"
    assert by_speaker["Jon"]["graph_speaker"] is None
