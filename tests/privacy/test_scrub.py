"""A store written before secrets were kept out: `health --deep` warns, every read hides
them, and `scrub` removes them from the store, its journal and its spool — leaving the
backups made before it to their owner, by name."""

from __future__ import annotations

import json
import logging

from cortex_tui.agent_turn.sessions import SessionTurns
from cortex_tui.agent_turn.spooling import turn_entry
from cortex_tui.spool.durable import Spool
from tests.conftest import Cli
from tests.privacy.corpus import SECRETS, Secret, in_prose
from tests.privacy.leaks import files_holding, fragments, payloads_holding

OFF = {"CORTEX_PRIVACY__DETECT_SECRETS": "false"}
MARKER = "quokka-lantern-7731"
"""Said in a memory with no secret: found on disk before and after, so a search that
finds no secret is a search that would have found one."""


def _pick(*families: str) -> list[Secret]:
    return [next(s for s in SECRETS if s.family == family) for family in families]


def _json(result_out: str) -> dict[str, object]:
    parsed: dict[str, object] = json.loads(result_out)
    return parsed


def _written_before(cli: Cli, secrets: list[Secret]) -> None:
    """What an older version stored: memories (one superseded by an update), an entity
    named with a secret, a journal holding the old version, a pending turn in the spool,
    a prompt kept for a session, and a notes file's lines in file sync's state."""
    for secret in secrets[1:]:
        assert cli("remember", in_prose(secret), env=OFF).code == 0
    first = cli("remember", in_prose(secrets[0]), "--json", env=OFF)
    assert first.code == 0, first.err
    memory_id = str(_json(first.out)["memory"]["id"])  # type: ignore[index]
    updated = cli("update", memory_id, "--content", f"The release train leaves on {MARKER}")
    assert updated.code == 0, updated.err
    entity = {
        "kind": "entity",
        "data": {
            "id": "5b0c1f3e-8d2a-4c6b-9e7f-1a2b3c4d5e6f",
            "name": f"deploy key {secrets[1].value}",
            "created_at": "2026-11-01T09:00:00Z",
        },
    }
    lines = [json.dumps({"kind": "cortex-export", "version": 1}), json.dumps(entity)]
    assert cli("import", "-", stdin="\n".join(lines) + "\n", env=OFF).code == 0
    notes = cli.home.parent / "notes.md"
    notes.write_text(f"# Staging\n\n- {in_prose(secrets[2])}\n", encoding="utf-8")
    assert cli("sync", str(notes), env=OFF).code == 0
    spool = Spool(cli.home / "spool", logging.getLogger("tests"))
    spool.append(turn_entry(f"User: {in_prose(secrets[2])}\nAssistant: ok", "s-1", None))
    SessionTurns(cli.home, "s-2").before_turn(in_prose(secrets[3]), None)
    said = ("capture", "--session", "s-3", "--user", in_prose(secrets[0]), "--assistant", "Ok.")
    assert cli(*said, env=OFF).code == 0  # the turn archive keeps what was said


def test_scrub_removes_what_an_older_version_stored(cli: Cli) -> None:
    secrets = _pick("AWS", "GitHub", "database URL", "Anthropic", "private key")
    values = [s.value for s in secrets]
    _written_before(cli, secrets)
    assert set(files_holding(cli.home, values)) == set(values)
    assert set(payloads_holding(cli.home, values)) == set(values)

    health = cli("health", "--deep")
    assert "privacy" in health.out and "cortex-tui scrub" in health.out, health.out
    recalled = cli("recall", "staging deploys", "--limit", "20")
    assert recalled.code == 0 and "[secret: " in recalled.out
    assert not any(value in recalled.out for value in values)
    context = cli("recall", "staging deploys", "--context", "--limit", "20").out
    assert "[secret: " in context
    assert not [v for v in values if any(part in context for part in fragments(v))]
    # what the read guard can know: a memory's own text (a value a judge's reason from
    # before quotes in pieces takes `scrub`, which learns the values first)
    exported = [json.loads(line) for line in cli("export").out.splitlines()]
    contents = "\n".join(e["data"]["content"] for e in exported if e["kind"] == "memory")
    assert not [v for v in values if any(part in contents for part in fragments(v))]
    archived = cli("sessions", "show", "s-3")
    assert archived.code == 0 and "[secret: " in archived.out, archived.out
    assert not [v for v in values if any(part in archived.out for part in fragments(v))]
    listed = cli("list", "--all")
    assert not any(value in listed.out for value in values)
    entities = cli("entities", "list")
    assert "deploy key [secret: GitHub token]" in entities.out
    assert not any(value in entities.out for value in values)

    assert cli("backup").code == 0
    dry = cli("scrub", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    report = _json(dry.out)
    # each version that holds one (a write-path decision may quote another's value)
    # the entity imported, and the one the captured turn named
    assert report["memories"] >= len(secrets) and report["entities"] == 2
    assert report["archived"] == 1
    assert set(report["secrets"]) == {s.kind for s in secrets}  # type: ignore[arg-type]
    assert report["journal_entries"] and report["spool_files"] == ["turns.jsonl"]
    assert report["elsewhere"] == {"agent session state(s)": 1, "file sync state": 1}
    assert len(report["backups_before"]) == 1  # type: ignore[arg-type]
    assert set(files_holding(cli.home, values)) == set(values), "a dry run changed nothing"

    scrubbed = cli("scrub")
    assert scrubbed.code == 0, scrubbed.err
    assert "backup(s) made before this may hold secrets" in scrubbed.out
    backups = cli.home / "backups"
    leaks = {
        value: [p for p in where if not p.startswith("backups")]
        for value, where in files_holding(cli.home, values).items()
    }
    assert not any(leaks.values()), leaks
    assert not payloads_holding(cli.home, values)
    assert files_holding(backups, values), "the backup made before is left to its owner"
    assert MARKER in files_holding(cli.home, [MARKER])

    exported = cli("export").out
    assert "[secret: GitHub token]" in exported
    assert "redacted" in exported  # each scrubbed version records what was removed
    assert "privacy      ok" in cli("health", "--deep").out
    assert cli("undo").code == 0
    assert not any(
        p
        for where in files_holding(cli.home, values).values()
        for p in where
        if not p.startswith("backups")
    )


def test_nothing_to_scrub_says_so_and_journals_nothing(cli: Cli) -> None:
    assert cli("remember", "Deploys go out on Tuesdays.").code == 0
    result = cli("scrub")
    assert result.code == 0
    assert "no secret found" in result.out
    undo = cli("undo")
    assert "scrub" not in undo.out
