"""Who the tenants are: `$CORTEX_HOME/tenants/registry.json`, written by `cortex-tui tenant`
and read by the server, which notices each change at its next request.

A record keeps a tenant's name, its team and its key's id, salt and scrypt hash — never
the key. Each tenant's memories live in `tenants/<name>/` (a data home of its own), a
team's shared ones in `teams/<team>/`. Every change is a whole new file put in place
with one rename under a lock: a crash halfway leaves the old registry, and two commands
at once do not lose either's change.
"""

from __future__ import annotations

import base64
import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from cortex_tui.errors import ConfigError, InvalidInputError, NotFoundError
from cortex_tui.private import open_private, private_dir
from cortex_tui.tenants import keys

FOLDER = "tenants"
REGISTRY = "registry.json"
TEAMS_FOLDER = "teams"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")


class TenantRecord(BaseModel):
    name: str
    team: str | None = None
    """The team whose shared memories (scope `team`) this tenant reads and writes."""
    key_id: str
    salt: str
    key_hash: str
    scrypt: tuple[int, int, int] = (keys.SCRYPT_N, keys.SCRYPT_R, keys.SCRYPT_P)
    created_at: datetime
    key_made_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def holds(self, key: str) -> bool:
        """Whether `key` is this tenant's current key (and the tenant is not revoked)."""
        if not self.active or keys.key_id_of(key) != self.key_id:
            return False
        n, r, p = self.scrypt
        return keys.key_matches(key, base64.b64decode(self.salt), self.key_hash, n, r, p)


class _RegistryFile(BaseModel):
    version: int = 1
    tenants: list[TenantRecord] = Field(default_factory=list)


def check_name(name: str, what: str = "tenant") -> str:
    if not _NAME.match(name):
        raise InvalidInputError(
            f"{what} name {name!r} must be 1-32 lower-case letters, digits or '-', "
            "starting with a letter or digit (e.g. alice, web-team)"
        )
    return name


class TenantRegistry:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / FOLDER
        self.path = self.folder / REGISTRY

    def data_home(self, name: str) -> Path:
        """Where the tenant's store, spool, backups and logs live."""
        return self.folder / check_name(name)

    def tenants(self) -> list[TenantRecord]:
        return self._read().tenants

    def find(self, name: str) -> TenantRecord:
        for record in self.tenants():
            if record.name == name:
                return record
        raise NotFoundError(f"no tenant named {name!r}; `cortex-tui tenant list` shows them")

    def add(self, name: str, team: str | None = None) -> tuple[TenantRecord, str]:
        """A new tenant and its key (shown once: only its hash is kept)."""
        check_name(name)
        if team is not None:
            check_name(team, "team")
        with self._changing() as registry:
            if any(record.name == name for record in registry.tenants):
                raise InvalidInputError(
                    f"tenant {name!r} exists; `cortex-tui tenant rotate {name}` gives it a new key"
                )
            now = datetime.now(UTC)
            record, key = _with_new_key(
                TenantRecord(
                    name=name,
                    team=team,
                    key_id="",
                    salt="",
                    key_hash="",
                    created_at=now,
                    key_made_at=now,
                )
            )
            registry.tenants.append(record)
        private_dir(self.data_home(name))
        return record, key

    def revoke(self, name: str) -> TenantRecord:
        """The tenant's key stops working at the server's next request; its memories stay
        (`rotate` gives it a working key again)."""
        with self._changing() as registry:
            record = _named(registry, name)
            if record.active:
                record.revoked_at = datetime.now(UTC)
            return record

    def rotate(self, name: str) -> tuple[TenantRecord, str]:
        """A new key for the tenant; the old one stops working."""
        with self._changing() as registry:
            record = _named(registry, name)
            fresh, key = _with_new_key(record)
            registry.tenants[registry.tenants.index(record)] = fresh
            return fresh, key

    def set_team(self, name: str, team: str | None) -> TenantRecord:
        """Join `team` (None: leave any); the tenant's own memories stay its own."""
        if team is not None:
            check_name(team, "team")
        with self._changing() as registry:
            record = _named(registry, name)
            record.team = team
            return record

    def team_home(self, team: str) -> Path:
        """Where a team's shared memories live."""
        return self.home / TEAMS_FOLDER / check_name(team, "team")

    def stamp(self) -> tuple[int, int, int] | None:
        """What changes whenever the registry is replaced (None: there is none)."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return info.st_ino, info.st_mtime_ns, info.st_size

    def _read(self) -> _RegistryFile:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return _RegistryFile()
        try:
            return _RegistryFile.model_validate_json(text)
        except ValidationError as exc:
            raise ConfigError(
                f"{self.path} is damaged ({exc.error_count()} problem(s)); restore it from a "
                "backup, or move it away and add the tenants again"
            ) from None

    @contextmanager
    def _changing(self) -> Iterator[_RegistryFile]:
        private_dir(self.folder)
        with open_private(self.folder / "registry.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            registry = self._read()
            yield registry
            tmp = self.path.with_suffix(".json.tmp")
            with open_private(tmp, "w") as handle:
                handle.write(registry.model_dump_json(indent=2) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)


def _named(registry: _RegistryFile, name: str) -> TenantRecord:
    for record in registry.tenants:
        if record.name == name:
            return record
    raise NotFoundError(f"no tenant named {name!r}; `cortex-tui tenant list` shows them")


def _with_new_key(record: TenantRecord) -> tuple[TenantRecord, str]:
    key_id, key = keys.new_key()
    salt = keys.new_salt()
    fresh = record.model_copy(
        update={
            "key_id": key_id,
            "salt": base64.b64encode(salt).decode(),
            "key_hash": keys.hash_key(key, salt),
            "scrypt": (keys.SCRYPT_N, keys.SCRYPT_R, keys.SCRYPT_P),
            "key_made_at": datetime.now(UTC),
            "revoked_at": None,
        }
    )
    return fresh, key
