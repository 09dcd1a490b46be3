"""`cortex-tui lifecycle` as a user runs it: dry run, real run, undo."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cortex_tui.maintenance.transfer import dump_line, header_line
from cortex_tui.models import Memory, Scope
from tests.conftest import Cli


def _memory(content: str, hours_ago: float, **fields: Any) -> Memory:
    at = datetime.now(UTC) - timedelta(hours=hours_ago)
    return Memory(content=content, created_at=at, updated_at=at, valid_from=at, **fields)


def _stored(cli: Cli) -> dict[str, dict[str, Any]]:
    """Every memory in the store, by id, read from an export."""
    r = cli("export")
    assert r.code == 0, r.err
    records = [json.loads(line) for line in r.out.splitlines()]
    return {rec["data"]["id"]: rec["data"] for rec in records if rec["kind"] == "memory"}


def test_lifecycle_dry_run_apply_and_undo(cli: Cli, tmp_path: Path) -> None:
    expiring = _memory("temporary deploy window", 3, scope=Scope.TTL, ttl_hours=1)
    first = _memory("Run make lint before opening a pull request.", 2, confidence=0.9)
    second = _memory("Run make lint before opening a pull request.", 1, confidence=0.7)
    export = tmp_path / "seed.jsonl"
    lines = [header_line(), *(dump_line(m) for m in (expiring, first, second))]
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli("import", str(export)).code == 0

    r = cli("lifecycle", "--dry-run", "--json")
    assert r.code == 0, r.err
    dry = json.loads(r.out)
    assert dry["dry_run"] is True and dry["journal_ids"] == []
    assert dry["expired"] == [expiring.id]
    assert dry["merges"] == [{"survivor_id": first.id, "merged_ids": [second.id]}]
    assert dry["counts"]["ttl_expired"] == 1 and dry["counts"]["consolidated"] == 1

    r = cli("lifecycle")
    assert r.code == 0, r.err
    assert "1 archived" in r.out and "undo --count 2" in r.out
    after = _stored(cli)
    assert after[expiring.id]["status"] == "archived"
    assert after[second.id]["superseded_by_id"] == first.id

    assert cli("undo", "--count", "2").code == 0
    restored = _stored(cli)
    assert restored[expiring.id]["status"] == "active"
    assert restored[second.id]["valid_to"] is None
