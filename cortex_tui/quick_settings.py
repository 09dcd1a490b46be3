"""The few settings the hook and the TUI's first frame need, read without pydantic
(~0.3 s saved every turn; ~0.1 s of imports before the app's first frame).

Same sources and precedence as `cortex_tui.config`: environment (`CORTEX_DAEMON`,
`CORTEX_HOOKS__PRE_TIMEOUT`, ...) over `$CORTEX_HOME/config.toml` over the defaults.
A value that does not parse falls back to the default: the hook must never fail on it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    from typing import Any

    StrPath = str | os.PathLike[str]

DEFAULT_TIMEOUTS = {"pre": 1.5, "post": 20.0}
DEFAULT_COLD_START_WAIT = 5.0
DEFAULT_MIN_PROMPT_CHARS = 3
DEFAULT_MAX_QUERY_CHARS = 2000
DEFAULT_QUERY_CHARS = 8192
_FALSE = ("0", "false", "no", "off")


_read: dict[str, dict[str, Any]] = {}
"""Each home's config.toml as this process first read it: a hook asks for several
settings, and reads and parses the file once."""


def _config(home: StrPath) -> dict[str, Any]:
    """The home's config.toml, parsed only when there is one (`tomllib` costs ~15 ms)."""
    where = os.fspath(home)
    if where not in _read:
        _read[where] = _parse(os.path.join(where, "config.toml"))
    return _read[where]


def _parse(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as config:
            text = config.read()
    except (OSError, UnicodeDecodeError):
        return {}
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def daemon_on(home: StrPath) -> bool:
    explicit = os.environ.get("CORTEX_DAEMON")
    if explicit is not None:
        return explicit.strip().lower() not in _FALSE
    value = _config(home).get("daemon", True)
    return value is not False


def hook_timeout(home: StrPath, kind: str) -> float:
    value = _hooks_number(home, f"{kind}_timeout", DEFAULT_TIMEOUTS[kind])
    return value if value > 0 else DEFAULT_TIMEOUTS[kind]


def cold_start_wait(home: StrPath) -> float:
    """Seconds a pre hook waits, beyond its timeout, for a service it finds starting."""
    value = _hooks_number(home, "cold_start_wait", DEFAULT_COLD_START_WAIT)
    return value if value >= 0 else DEFAULT_COLD_START_WAIT


def _hooks_number(home: StrPath, key: str, default: float) -> float:
    """`hooks.<key>` from the environment or config.toml; `default` when unset or not a
    number."""
    raw: Any = os.environ.get(f"CORTEX_HOOKS__{key.upper()}")
    if raw is None:
        hooks = _config(home).get("hooks", {})
        raw = hooks.get(key) if isinstance(hooks, dict) else None
    try:
        return float(raw) if raw is not None else default
    except (TypeError, ValueError):
        return default


def records_kept(home: StrPath) -> bool:
    """`injections.enabled`: whether what each turn was given is recorded."""
    explicit = os.environ.get("CORTEX_INJECTIONS__ENABLED")
    if explicit is not None:
        return explicit.strip().lower() not in _FALSE
    section = _config(home).get("injections", {})
    return not (isinstance(section, dict) and section.get("enabled") is False)


def remote_server(home: StrPath) -> tuple[str, str, str] | None:
    """(url, API key, CA certificate or "") of the server this home sends its memories
    to (`url`, `api_key`, `ca_cert`; `CORTEX_URL`, `CORTEX_API_KEY`, `CORTEX_CA_CERT`), or
    None when it keeps them itself. A url without a key is returned with key "", for the
    caller to say what is missing."""
    url = os.environ.get("CORTEX_URL")
    config = _config(home) if url is None or "CORTEX_API_KEY" not in os.environ else {}
    url = url if url is not None else config.get("url")
    if not isinstance(url, str) or not url.strip():
        return None
    key = os.environ.get("CORTEX_API_KEY", config.get("api_key"))
    ca = os.environ.get("CORTEX_CA_CERT", config.get("ca_cert"))
    return url.strip(), key if isinstance(key, str) else "", ca if isinstance(ca, str) else ""


def prompt_limits(home: StrPath) -> tuple[int, int]:
    """(hooks.min_prompt_chars, the characters of a prompt recalled on: the smaller of
    hooks.max_query_chars and limits.query_chars), for a hook that plans its recall
    itself (one whose home sends its memories to a server)."""
    minimum = int(_hooks_number(home, "min_prompt_chars", DEFAULT_MIN_PROMPT_CHARS))
    longest = int(_hooks_number(home, "max_query_chars", DEFAULT_MAX_QUERY_CHARS))
    raw: Any = os.environ.get("CORTEX_LIMITS__QUERY_CHARS")
    if raw is None:
        limits = _config(home).get("limits", {})
        raw = limits.get("query_chars") if isinstance(limits, dict) else None
    try:
        query_chars = int(raw) if raw is not None else DEFAULT_QUERY_CHARS
    except (TypeError, ValueError):
        query_chars = DEFAULT_QUERY_CHARS
    return max(1, minimum), max(1, min(longest, query_chars))
