"""API keys: made here, shown once, kept only as salted scrypt hashes.

A key reads `ctk_<id>_<secret>`. The id is not secret: it finds the one record to check,
so an unknown key costs no hashing (scrypt is slow on purpose, ~50 ms and 16 MB, which
makes guessing a secret from a stolen registry impractical).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

PREFIX = "ctk"
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
_KEY = re.compile(r"^ctk_(?P<id>[0-9a-f]{16})_(?P<secret>[A-Za-z0-9_-]{43})$")


def new_key() -> tuple[str, str]:
    """A fresh (key id, whole key)."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    return key_id, f"{PREFIX}_{key_id}_{secret}"


def key_id_of(key: str) -> str | None:
    """The id part of a well-formed key; None for anything else."""
    match = _KEY.match(key)
    return match["id"] if match else None


def hash_key(key: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    digest = hashlib.scrypt(key.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024)
    return base64.b64encode(digest).decode()


def new_salt() -> bytes:
    return secrets.token_bytes(16)


def key_matches(key: str, salt: bytes, expected: str, n: int, r: int, p: int) -> bool:
    """Whether `key` hashes to `expected` (compared in constant time)."""
    return hmac.compare_digest(hash_key(key, salt, n, r, p), expected)
