"""Reading a field of a public benchmark's JSON, with an error that names the spot.

LoCoMo and LongMemEval are read as their authors wrote them; a field that is missing or
of the wrong kind means the file is not the one the user meant, and the message says
which item, which field and which file was expected.
"""

from __future__ import annotations

from typing import Any

from cortex_tui.errors import InvalidInputError


def required(obj: dict[str, Any], key: str, kind: type, where: str, expected: str) -> Any:
    """`obj[key]` when it is a `kind`; else a one-line error naming `where` and the file
    `expected` ("locomo10.json", "a LongMemEval file")."""
    value = obj.get(key)
    if not isinstance(value, kind):
        raise InvalidInputError(
            f"{where}: field {key} is missing or not a {kind.__name__} (is this {expected}?)"
        )
    return value
