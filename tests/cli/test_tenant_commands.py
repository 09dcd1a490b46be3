"""`cortex-tui tenant add|list|revoke|rotate` as a server's admin uses them (the real CLI
in a subprocess): a key is printed once and kept only as a salted hash, every mistake is
one line, and what the registry holds is private."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from cortex_tui.tenants.keyring import Keyring
from cortex_tui.tenants.registry import TenantRegistry
from tests.server.conftest import service_env


def tenant(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # the exit code is what the tests look at
        [sys.executable, "-m", "cortex_tui", "--home", str(home), "tenant", *args],
        env=service_env(home),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_a_key_is_shown_once_and_kept_only_as_a_salted_hash(tmp_path: Path) -> None:
    home = tmp_path / "home"
    added = tenant(home, "add", "alice")
    assert added.returncode == 0, added.stderr
    key = added.stdout.strip()
    assert key.startswith("ctk_") and "shown this once" in added.stderr
    registry = (home / "tenants" / "registry.json").read_text()
    assert key not in registry and key.rsplit("_", 1)[1] not in registry
    record = json.loads(registry)["tenants"][0]
    assert record["name"] == "alice" and record["salt"] and record["key_hash"]
    assert stat.S_IMODE((home / "tenants" / "registry.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "tenants" / "alice").stat().st_mode) == 0o700
    keyring = Keyring(TenantRegistry(home))
    found = keyring.tenant_for(key)
    assert found is not None and found.name == "alice"
    assert keyring.tenant_for(key[:-1] + ("a" if key[-1] != "a" else "b")) is None
    # Two tenants' records differ even for the same secret: each hash has its own salt.
    second = tenant(home, "add", "bob", "--json")
    bob = json.loads(second.stdout)
    assert bob["name"] == "bob" and bob["api_key"].startswith("ctk_")
    salts = {
        row["salt"]
        for row in json.loads((home / "tenants" / "registry.json").read_text())["tenants"]
    }
    assert len(salts) == 2


def test_revoke_and_rotate_take_effect_for_a_server_already_running(tmp_path: Path) -> None:
    home = tmp_path / "home"
    key = tenant(home, "add", "alice").stdout.strip()
    keyring = Keyring(TenantRegistry(home))  # what a running server holds
    assert keyring.tenant_for(key) is not None
    revoked = tenant(home, "revoke", "alice")
    assert revoked.returncode == 0 and "its memories stay" in revoked.stdout
    assert keyring.tenant_for(key) is None
    listed = json.loads(tenant(home, "list", "--json").stdout)
    assert listed[0]["active"] is False and listed[0]["revoked_at"]
    new_key = tenant(home, "rotate", "alice").stdout.strip()
    assert new_key != key
    assert keyring.tenant_for(key) is None
    found = keyring.tenant_for(new_key)
    assert found is not None and found.active
    assert "alice: key made" in tenant(home, "list").stdout


def test_mistakes_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert tenant(home, "list").stdout.strip() == "no tenants yet: `tenant add NAME`"
    tenant(home, "add", "alice")
    before = (home / "tenants" / "registry.json").read_text()
    for args, words in (
        (("add", "alice"), "exists"),
        (("add", "Alice B"), "lower-case"),
        (("add", "../etc"), "lower-case"),
        (("revoke", "nobody"), "no tenant named"),
        (("rotate", "nobody"), "no tenant named"),
    ):
        done = tenant(home, *args)
        assert done.returncode != 0, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and words in done.stderr
    assert (home / "tenants" / "registry.json").read_text() == before
    (home / "tenants" / "registry.json").write_text("{not json")
    damaged = tenant(home, "list")
    assert damaged.returncode == 1 and "is damaged" in damaged.stderr
