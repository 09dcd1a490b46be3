"""`cortex-tui backup` while the service runs (the service writes it and keeps serving),
`backup --list`, and `restore-backup`, which asks first, stops the service and keeps
the store it replaces."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from cortex_tui.clients import local_service
from tests.server.conftest import remember_offline, service_env, start_service, stop_service


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cortex_tui", *args],
        env=service_env(home),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=120,
    )


def contents(home: Path) -> list[str]:
    listed = json.loads(cli(home, "list", "--json", "--limit", "100").stdout)
    return sorted(m["content"] for m in listed["memories"])


def test_backup_through_the_service_then_restore(service_home: Path, tmp_path: Path) -> None:
    home = service_home
    for text in ("The atlas API listens on port 8443", "Deploys happen on Tuesdays"):
        assert cli(home, "remember", text).returncode == 0
    before = contents(home)
    pid = (local_service.status(home) or {})["pid"]

    made = cli(home, "backup", str(tmp_path), "--json")
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert report["info"]["counts"]["memories"] == 2
    assert Path(report["path"]).parent == tmp_path
    assert (local_service.status(home) or {})["pid"] == pid  # it wrote the file, still serving
    assert cli(home, "remember", "Written after the backup").returncode == 0

    asked = cli(home, "restore-backup", report["path"])
    assert asked.returncode == 2
    assert asked.stderr.count("\n") == 1 and "add --yes to confirm" in asked.stderr
    assert len(contents(home)) == 3  # nothing changed without the confirmation

    done = cli(home, "restore-backup", report["path"], "--yes")
    assert done.returncode == 0, done.stderr
    assert "stopped the cortex-tui service" in done.stderr
    assert "the store it replaced is backed up in" in done.stdout
    assert contents(home) == before  # the CLI starts the service again on the restored store

    listed = cli(home, "backup", "--list").stdout.splitlines()
    assert len(listed) == 1 and "before restore" in listed[0] and "3 memories" in listed[0]


def test_a_store_too_damaged_to_open_is_kept_aside_by_a_restore(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CORTEX_DAEMON": "0"}
    subprocess.run(
        [sys.executable, "-m", "cortex_tui", "remember", "The staging cluster resets on Sundays"],
        env=service_env(home, **env),
        check=True,
        capture_output=True,
    )
    backup = home / "one.cortex-backup"
    made = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "backup", str(backup)],
        env=service_env(home, **env),
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    (home / "store" / "meta.json").write_text("{ not json")

    done = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "restore-backup", str(backup), "--yes"],
        env=service_env(home, **env),
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    kept = [p for p in home.iterdir() if p.name.startswith("store.damaged-")]
    assert len(kept) == 1 and (kept[0] / "meta.json").read_text() == "{ not json"
    assert str(kept[0]) in done.stdout
    found = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "search", "staging cluster"],
        env=service_env(home, **env),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "resets on Sundays" in found.stdout


def test_a_service_that_finds_its_store_damaged_says_why_to_the_cli_and_the_hook(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    remember_offline(home, "The atlas API listens on port 8443")
    for entry in (home / "store" / "memories" / "wal").iterdir():
        entry.unlink()  # the log no longer holding the write (as after 32 MB of others)
    shutil.rmtree(home / "store" / "memories" / "segments")

    said = cli(home, "stats")
    assert said.returncode == 1 and said.stderr.count("\n") == 1
    assert "service did not start: the store at" in said.stderr
    assert "is damaged" in said.stderr and "cortex-tui repair" in said.stderr
    service_log = home / "logs" / "service.log"
    refusals = service_log.read_text().count("cortex-tui serve: ")
    prompt = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "atlas API port"})
    hook = subprocess.run(
        [sys.executable, "-m", "cortex_tui", "--hook", "pre"],
        input=prompt,
        env=service_env(home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    assert "is damaged" in (home / "logs" / "hooks.log").read_text()
    # It refused a moment ago: the hook does not spawn it again on every turn.
    assert service_log.read_text().count("cortex-tui serve: ") == refusals


def test_damage_met_while_serving_shows_in_the_service_status(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for text in ("Deploys happen on Tuesdays", "The atlas API listens on port 8443"):
        remember_offline(home, text)
    process = start_service(home)
    try:  # the page goes bad under the running service (its warm-up read it whole)
        (segment,) = (home / "store" / "memories" / "segments").iterdir()
        with (segment / "payload_storage" / "page_0.dat").open("r+b") as page:
            page.write(bytes(range(256)) * 80)
        listed = cli(home, "list")
        assert listed.returncode == 1 and "is damaged: reading its memories" in listed.stderr
        status = subprocess.run(
            [sys.executable, "-m", "cortex_tui", "serve", "--status", "--home", str(home)],
            env=service_env(home),
            capture_output=True,
            text=True,
            check=False,
        )
        assert status.returncode == 0
        assert "warning: the store at" in status.stdout and "cortex-tui repair" in status.stdout
    finally:
        stop_service(home, process)
