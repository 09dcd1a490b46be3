"""Which tenant a request's key belongs to, as the server asks on every request.

A key checked once is remembered (by its SHA-256, never the key itself) until the
registry changes: the scrypt check runs once per key, not per request. Any change to
the registry file (a `tenant revoke` or `rotate` from the CLI) forgets them all, so a
revoked key is refused from the next request on.
"""

from __future__ import annotations

import hashlib
import threading

from cortex_tui.tenants.keys import key_id_of
from cortex_tui.tenants.registry import TenantRecord, TenantRegistry


class Keyring:
    def __init__(self, registry: TenantRegistry) -> None:
        self._registry = registry
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._records: dict[str, TenantRecord] = {}
        """Active tenants by key id."""
        self._checked: dict[bytes, TenantRecord] = {}

    def tenant_for(self, key: str) -> TenantRecord | None:
        """The active tenant whose key this is; None for anything else."""
        with self._lock:
            self._refresh()
            digest = hashlib.sha256(key.encode()).digest()
            known = self._checked.get(digest)
            if known is not None:
                return known
            records = self._records
        record = records.get(key_id_of(key) or "")
        if record is None or not record.holds(key):
            return None
        with self._lock:
            if self._records is records:  # not replaced while the key was hashed
                self._checked[digest] = record
        return record

    def _refresh(self) -> None:
        stamp = self._registry.stamp()
        if stamp == self._stamp and self._stamp is not None:
            return
        self._records = {
            record.key_id: record for record in self._registry.tenants() if record.active
        }
        self._checked = {}
        self._stamp = stamp
