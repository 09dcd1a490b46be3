"""Bounded reads of regular files, and text cleaned of what cannot be encoded."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cortex_tui.errors import InvalidInputError
from cortex_tui.untrusted.files import next_line_start, read_regular, read_tail, read_whole
from cortex_tui.untrusted.text import (
    clean_json_loads,
    clean_text,
    decode_bytes,
    find_lone_surrogate,
)


def test_reads_are_bounded_and_start_where_asked(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    chunk = read_regular(path, limit=4, start=3)
    assert (chunk.data, chunk.start, chunk.end, chunk.size, chunk.reaches_end) == (
        b"3456",
        3,
        7,
        10,
        False,
    )
    assert read_regular(path, limit=100, start=8).data == b"89"
    assert read_regular(path, limit=100, start=50).data == b""
    tail = read_tail(path, limit=3)
    assert (tail.data, tail.start) == (b"789", 7)
    assert read_tail(path, limit=100).data == b"0123456789"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (os.mkfifo, "is a named pipe, not a regular file"),
        (lambda p: p.mkdir(), "is a folder, not a regular file"),
        (lambda p: None, "does not exist"),
    ],
)
def test_only_regular_files_are_read(
    tmp_path: Path, make: Callable[[Path], object], message: str
) -> None:
    path = tmp_path / "x"
    make(path)
    with pytest.raises(InvalidInputError, match=message):
        read_regular(path, limit=10, what="transcript")


def test_a_device_is_refused_before_a_byte_is_read() -> None:
    with pytest.raises(InvalidInputError, match="/dev/zero is a character device"):
        read_whole("/dev/zero", limit=10, what="import file", fix="give a file")


def test_a_file_over_the_limit_names_its_size_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"x" * (3 * 1024 * 1024))
    with pytest.raises(InvalidInputError, match=r"is 3\.0 MB, over the 2 MB limit; split it"):
        read_whole(path, limit=2 * 1024 * 1024, what="import file", fix="split it")


def test_next_line_start_scans_any_line_length(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 3_000_000 + b"\nrest")
    assert next_line_start(path, 10) == 3_000_001
    assert next_line_start(path, 3_000_001) is None


def test_lone_surrogates_become_replacement_characters() -> None:
    assert clean_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert clean_text("😀") == "😀"
    assert decode_bytes(b"\xef\xbb\xbfcaf\xff") == "caf\ufffd"
    value = clean_json_loads(
        '{"k\\ud800": ["x\\udc00", {"pair": "\\ud83d\\ude00"}], "lit": "\\\\ud800"}'
    )
    assert value == {"k\ufffd": ["x\ufffd", {"pair": "😀"}], "lit": "\\ud800"}
    deep = "[" * 900 + '"\\ud800"' + "]" * 900  # nested as deep as the parser goes
    inner = clean_json_loads(deep)
    for _ in range(900):
        inner = inner[0]
    assert inner == "\ufffd"


def test_find_lone_surrogate_tells_escapes_from_escaped_backslashes() -> None:
    assert find_lone_surrogate('{"a": "x\\ud800"}') == "x\ud800"
    assert find_lone_surrogate('{"a": "\\\\ud800", "b": "\\ud83d\\ude00"}') is None
    assert find_lone_surrogate("not json \\ud800") is None
    assert find_lone_surrogate(json.dumps({"a": "plain"})) is None
