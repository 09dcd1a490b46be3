"""No way into the store keeps a secret: after every secret of the corpus went in through
every way there is, neither the store's payloads, its files, an export, a backup, the
spool, the lexical terms nor the entity list hold one, and a later prompt's context
carries none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cortex_tui.config import WritePathConfig
from cortex_tui.engine.local import LocalEngine
from cortex_tui.errors import InvalidInputError
from cortex_tui.indexer import index_path
from cortex_tui.maintenance.backup import list_backups
from cortex_tui.maintenance.transfer import dump_line, header_line
from cortex_tui.models import (
    Decision,
    Entity,
    Memory,
    MemoryDraft,
    Relation,
    WriteAction,
)
from cortex_tui.recall.request import RecallRequest
from cortex_tui.store.base import MemoryFilter
from cortex_tui.store.lexical import indexed_words, tokenize
from tests.conftest import NOW, Cli
from tests.hooks.test_hooks import hook, repo
from tests.privacy.corpus import SECRETS, Secret, in_code, in_env_file, in_json, in_prose
from tests.privacy.leaks import files_holding, fragments, payloads_holding

VALUES = [s.value for s in SECRETS]
EVERYTHING = MemoryFilter(current_only=False, statuses=None)
MARKER = "quokka-lantern-7731"


def _import_lines(secret: Secret, other: Secret) -> list[str]:
    """An export from elsewhere holding secrets in every text field it has."""
    memory = Memory(
        content=f"Imported: {in_prose(secret)}",
        tags=["deploy", other.value[:40]],
        created_at=NOW,
        updated_at=NOW,
        valid_from=NOW,
        decisions=[
            Decision(
                action=WriteAction.DUPLICATE,
                reason="the same claim",
                statement=in_prose(other),
                at=NOW,
            )
        ],
    )
    entity = Entity(name=f"key {secret.value}", aliases=[other.value], created_at=NOW)
    plain = Entity(name="staging", created_at=NOW)
    relation = Relation(
        subject_id=plain.id, predicate=f"uses {secret.value}", object_id=entity.id, valid_from=NOW
    )
    return [
        header_line(),
        dump_line(memory),
        dump_line(entity),
        dump_line(plain),
        dump_line(relation),
    ]


def _conflicted(engine: LocalEngine) -> str:
    engine.remember(MemoryDraft(content="The atlas team uses Postgres 15", project="atlas"))
    engine.remember(MemoryDraft(content="The atlas team uses MySQL 8", project="atlas"))
    [group] = [
        g for g in engine.curation.conflicts() if any("atlas" in m.content for m in g.members)
    ]
    return group.id


def test_every_way_into_the_engine_leaves_no_secret(engine: LocalEngine, tmp_path: Path) -> None:
    home = engine.settings.home
    for index, secret in enumerate(SECRETS):
        draft = MemoryDraft(content=in_prose(secret), tags=["staging", secret.value[:40]])
        engine.remember(draft)
        engine.capture(
            f"User: {in_code(secret)}\nAssistant: Understood, noted for staging.",
            session_id=f"session-{index}",
        )
        engine.capture(f"User: {in_json(secret)}\nAssistant: ok", session_id=f"json-{index}")
    tagged = MemoryDraft(content="The staging deploy user.", tags=[SECRETS[0].value, "aws"])
    # the default model's thresholds: the hashing embedder's own fold this loose wording
    # into a staging memory above, and what is checked here is the tag, not the fold
    writer = engine.with_settings(engine.settings.model_copy(update={"write": WritePathConfig()}))
    assert writer.remember(tagged).memory.tags == ["aws"]  # a key as a tag, its case kept
    plain = engine.remember(MemoryDraft(content=f"The release train leaves on {MARKER}."))
    updated = engine.update(
        plain.memory.id, content=in_env_file(SECRETS[1]), tags=["env", SECRETS[2].value]
    )
    engine.curation.merge(_conflicted(engine), in_prose(SECRETS[3]))
    engine.upkeep.import_lines(_import_lines(SECRETS[4], SECRETS[5]))
    notes = tmp_path / "notes"
    notes.mkdir()
    kept_out = "alice / Winter-is-coming-1999"
    (notes / "deploy.md").write_text(
        "# Deploy\n\n"
        + "\n\n".join(in_env_file(s) for s in SECRETS[6:12])
        + f"\n\n<private>\n## Staging creds\n\n{kept_out}\n</private>\n\nDeploys on Tuesdays.\n",
        encoding="utf-8",
    )
    index_path(engine, notes, project=None)
    assert not [m for m in engine.store.iter_memories(EVERYTHING) if "Winter" in m.content]
    with pytest.raises(InvalidInputError, match="holds what memory never keeps"):
        engine.graph.rename(engine.graph.list_entities().entities[0].id, SECRETS[0].value)
    assert any(d.action is WriteAction.REDACTED for d in updated.decisions)

    exported = "\n".join(engine.export())
    assert not [v for v in VALUES if any(n in exported for n in fragments(v))]
    assert "[secret: " in exported
    names = [e.name for e in engine.store.all_entities()]
    names += [a for e in engine.store.all_entities() for a in e.aliases]
    assert not [n for n in names for v in VALUES if v in n]
    secret_terms = {t for v in VALUES for t in tokenize(v) if len(t) >= 12}
    stored = list(engine.store.iter_memories(EVERYTHING))
    stored_terms = {t for m in stored for t in tokenize(" ".join(indexed_words(m)))}
    tags = {t for m in stored for t in m.tags}
    assert not [t for t in tags for v in VALUES if v.casefold()[:12] in t]
    assert not secret_terms & stored_terms
    backup = engine.upkeep.backup()
    context = engine.recall(RecallRequest(query="which key do the staging deploys use")).context
    assert "[secret: " in context and not any(v in context for v in VALUES)
    engine.close()

    assert not payloads_holding(home, VALUES)
    assert MARKER in payloads_holding(home, [MARKER])
    assert not files_holding(home, VALUES), "in the store's files, the spool or the backup"
    assert Path(backup.path).exists() and list_backups(home / "backups")


def test_the_cli_hooks_and_transcripts_keep_no_secret(cli: Cli, tmp_path: Path) -> None:
    project = repo(tmp_path, "harbor")
    for secret in SECRETS[:8]:
        assert cli("remember", in_prose(secret)).code == 0
    transcript = tmp_path / "session.jsonl"
    from tests.privacy.corpus import transcript_lines

    transcript.write_text(transcript_lines(SECRETS[8:20]), encoding="utf-8")
    captured = cli("capture", "--transcript", str(transcript))
    assert captured.code == 0, captured.err
    notes = tmp_path / "notes.md"
    notes.write_text("\n\n".join(in_prose(s) for s in SECRETS[20:26]) + "\n", encoding="utf-8")
    synced = cli("sync", str(notes))
    assert synced.code == 0, synced.err
    env = {"CORTEX_EMBEDDER__KIND": "hashing"}
    session = "b7e1c9d2-privacy"
    for secret in SECRETS[26:]:
        said = {
            "hook_event_name": "UserPromptSubmit",
            "session_id": session,
            "prompt": f"From now on use this for staging: {secret.said}",
            "cwd": str(project),
        }
        assert hook(cli.home, "pre", json.dumps(said), env=env).returncode == 0
        stop = {
            "hook_event_name": "Stop",
            "session_id": session,
            "cwd": str(project),
            "stop_hook_active": False,
            "last_assistant_message": "Understood, that is what staging uses from now on.",
        }
        assert hook(cli.home, "post", json.dumps(stop), env=env).returncode == 0
    asked = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "a-later-session",
        "prompt": "what do the staging deploys use from now on?",
        "cwd": str(project),
    }
    answer = hook(cli.home, "pre", json.dumps(asked), env=env)
    assert answer.returncode == 0 and "[secret: " in answer.stdout
    assert not [v for v in VALUES if any(n in answer.stdout for n in fragments(v))]
    exported = cli("export").out
    assert exported.count("[secret: ") >= len(SECRETS) // 2
    assert not [v for v in VALUES if any(n in exported for n in fragments(v))]
    assert cli("backup").code == 0

    assert not payloads_holding(cli.home, VALUES)
    assert not files_holding(cli.home, VALUES)
