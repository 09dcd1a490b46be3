"""`health --deep`'s checks, each found wanting the way a user's home gets there: a
capture nobody drains, a spool line that had to be quarantined, a file another user can
read, no backup, an old one, a damaged one."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cortex_tui.engine.local import LocalEngine
from cortex_tui.maintenance.checkup import Check, checkup
from cortex_tui.models import MemoryDraft


def _by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


def test_a_healthy_home_passes_every_check(engine: LocalEngine) -> None:
    engine.remember(MemoryDraft(content="The release train leaves on Thursdays"))
    engine.upkeep.backup()
    report = engine.upkeep.health(deep=True)
    assert report["ok"] is True
    assert [c["name"] for c in report["checks"]] == [
        "store data",
        "spool",
        "permissions",
        "backup",
        "privacy",
    ]
    assert all(c["ok"] and c["fix"] is None for c in report["checks"])


def test_each_warning_names_its_fix(engine: LocalEngine) -> None:
    home = engine.settings.home
    now = datetime.now(UTC)
    checks = _by_name(checkup(engine.store, engine.settings, now))
    assert not checks["backup"].ok and checks["backup"].fix == "`cortex-tui backup`"

    backup = Path(engine.upkeep.backup().path)
    spool = home / "spool"
    spool.mkdir(exist_ok=True)
    waiting = {"key": "k1", "text": "user: hi", "at": time.time() - 3600}
    (spool / "turns.jsonl").write_text(json.dumps(waiting) + "\n")
    (home / "notes.txt").write_text("left readable by another tool")
    (home / "notes.txt").chmod(0o644)
    later = now + timedelta(days=8)

    checks = _by_name(checkup(engine.store, engine.settings, later))

    assert not checks["spool"].ok and "1 captures waiting" in checks["spool"].found
    assert "serve --status" in (checks["spool"].fix or "")
    assert not checks["permissions"].ok and "notes.txt" in checks["permissions"].found
    assert f"chmod -R go-rwx {home}" in (checks["permissions"].fix or "")
    assert not checks["backup"].ok and "8 days old" in checks["backup"].found
    assert checks["store data"].ok

    backup.write_bytes(backup.read_bytes()[:-200])  # the zip's directory cut off
    checks = _by_name(checkup(engine.store, engine.settings, now))
    assert not checks["backup"].ok and "not a cortex-tui backup" in checks["backup"].found
