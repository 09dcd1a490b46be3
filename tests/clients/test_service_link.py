"""How a caller reads the service's answer, over a real Unix socket: it returns once the
body is whole, not when the service closes the connection (the service closes it only
after the request's background tasks, such as counting a pre hook's reads)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cortex_tui.clients import local_service

Answer = Callable[[socket.socket], None]


@contextmanager
def answering(home: Path, answer: Answer) -> Iterator[threading.Event]:
    """A one-request server on the home's socket that sends `answer` and then keeps the
    connection open until the event is set."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(local_service.socket_path(home))
    server.listen(1)
    release = threading.Event()

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            connection.recv(65536)
            answer(connection)
            release.wait(10)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield release
    finally:
        release.set()
        thread.join(10)
        server.close()


def _call(home: Path) -> tuple[int, bytes]:
    return local_service.call_raw(home, "POST", "/v1/hook/pre/raw", b"{}", timeout=3)


def test_a_sized_answer_is_read_without_waiting_for_the_close(tmp_path: Path) -> None:
    def answer(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello ")
        connection.sendall(b"world")

    with answering(tmp_path, answer) as release:
        # The server holds the connection open for 10 s; the timeout is 3 s.
        assert _call(tmp_path) == (200, b"hello world")
        assert not release.is_set()


def test_a_chunked_answer_is_read_to_its_last_chunk(tmp_path: Path) -> None:
    def answer(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel")
        connection.sendall(b"lo\r\n6\r\n world\r\n0\r\n\r\n")

    with answering(tmp_path, answer):
        assert _call(tmp_path) == (200, b"hello world")


def test_an_answer_cut_short_is_no_answer(tmp_path: Path) -> None:
    def answer(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\nhello")
        connection.shutdown(socket.SHUT_WR)

    with answering(tmp_path, answer), pytest.raises(local_service.ServiceUnavailable):
        _call(tmp_path)
