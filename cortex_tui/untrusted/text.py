"""Text that is valid Unicode, whatever arrived.

Two things reach Python as a `str` yet cannot be encoded as UTF-8, and fail far from
where they came in (the tokenizer, the store's JSON, a log line): a lone UTF-16
surrogate, which JSON allows as an escape (`"\\ud800"`), and the `surrogateescape`
stand-ins Python makes for invalid UTF-8 bytes in arguments and some streams. Each edge
(hook input, transcript lines, command-line arguments) passes its text through here
once, turning both into U+FFFD, the replacement character; the HTTP API refuses them
with a 400 instead (see `find_lone_surrogate`). Standard library only: the hook imports it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the hook process does not import `typing`
if TYPE_CHECKING:
    import re
    from typing import Any

REPLACEMENT = "\ufffd"
_compiled: list[re.Pattern[str]] = []


def _surrogate_patterns() -> list[re.Pattern[str]]:
    """A lone surrogate, and a JSON escape that could decode to one (only then is a
    parsed value walked). Compiled on first use: a pre hook imports this module and
    never needs `re`, whose import costs it ~3 ms."""
    if not _compiled:
        import re

        _compiled.extend((re.compile("[\ud800-\udfff]"), re.compile(r"\\u[dD][89a-fA-F]")))
    return _compiled


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD."""
    if text.isascii():
        return text
    return _surrogate_patterns()[0].sub(REPLACEMENT, text)


def decode_bytes(data: bytes) -> str:
    """UTF-8 bytes as text, each invalid sequence a U+FFFD (a byte-order mark dropped)."""
    return data.decode("utf-8-sig", errors="replace")


def clean_json_loads(text: str) -> Any:
    """`json.loads` whose every string (keys too) is free of lone surrogates."""
    import json

    value = json.loads(text)
    if _may_hold_surrogate(text):
        return _clean_value(value)
    return value


def _may_hold_surrogate(text: str) -> bool:
    surrogate, escape = _surrogate_patterns()
    return bool(surrogate.search(text) or escape.search(text))


def find_lone_surrogate(text: str) -> str | None:
    """The first string in JSON `text` holding a lone surrogate (escaped or raw), or
    None. Cheap for ordinary bodies: the value is parsed and walked only when the text
    holds an escape that could decode to one."""
    if not _may_hold_surrogate(text):
        return None
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None  # not JSON: the route's own validation says so
    return _first_dirty(value)


def _clean_value(root: Any) -> Any:
    """`root` with its strings cleaned, in place (json.loads made every container fresh).
    Iterative: a value nested as deep as the parser allows must not overflow the stack."""
    if isinstance(root, str):
        return clean_text(root)
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key in list(item):
                value = item[key]
                clean_key = clean_text(key)
                if clean_key != key:
                    del item[key]
                item[clean_key] = clean_text(value) if isinstance(value, str) else value
                stack.append(item[clean_key])
        elif isinstance(item, list):
            for index, value in enumerate(item):
                if isinstance(value, str):
                    item[index] = clean_text(value)
                else:
                    stack.append(value)
    return root


def _first_dirty(value: Any) -> str | None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _surrogate_patterns()[0].search(item):
                return item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return None
