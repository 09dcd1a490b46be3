"""The service's engine lock: one holder at a time, and an agent's read before any
background write that was waiting first."""

from __future__ import annotations

import threading
import time

from cortex_tui.engine.core import WRITE_BATCH
from cortex_tui.engine.local import LocalEngine
from cortex_tui.maintenance.transfer import dump_line, header_line
from cortex_tui.models import MemoryDraft
from cortex_tui.server.engine_lock import EngineLock


def wait_until(condition: object, what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def test_a_waiting_reader_goes_before_a_writer_that_waited_longer() -> None:
    lock = EngineLock()
    order: list[str] = []
    release_first = threading.Event()
    first_holds = threading.Event()

    def first_writer() -> None:
        with lock.hold("write", urgent=False):
            order.append("first writer")
            first_holds.set()
            release_first.wait(10)

    def access(name: str, urgent: bool) -> None:
        with lock.hold(name, urgent=urgent):
            order.append(name)

    threads = [threading.Thread(target=first_writer)]
    threads[0].start()
    first_holds.wait(10)
    threads.append(threading.Thread(target=access, args=("second writer", False)))
    threads[1].start()
    threads.append(threading.Thread(target=access, args=("reader", True)))
    threads[2].start()
    wait_until(lock.contended, "the reader to wait")
    release_first.set()
    for thread in threads:
        thread.join(10)
    assert order == ["first writer", "reader", "second writer"]
    assert not lock.contended()
    times = lock.times.summary()
    assert {kind: t["count"] for kind, t in times.items()} == {
        "write": 1,
        "second writer": 1,
        "reader": 1,
    }
    assert times["reader"]["wait_max_ms"] > 0


def test_holders_never_overlap() -> None:
    lock = EngineLock()
    inside = 0
    most = 0
    count_lock = threading.Lock()

    def work(urgent: bool) -> None:
        nonlocal inside, most
        for _ in range(200):
            with lock.hold("any", urgent=urgent):
                with count_lock:
                    inside += 1
                    most = max(most, inside)
                with count_lock:
                    inside -= 1

    threads = [threading.Thread(target=work, args=(n % 2 == 0,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most == 1
    assert lock.times.summary()["any"]["count"] == 1200


def test_a_long_write_lets_a_waiting_reader_in_between_its_pieces() -> None:
    lock = EngineLock()
    order: list[str] = []
    first_piece_done = threading.Event()

    def importer() -> None:
        with lock.hold("import", urgent=False):
            order.append("first piece")
            first_piece_done.set()
            wait_until(lock.contended, "the reader to wait")
            lock.let_waiting_in()
            order.append("second piece")
            lock.let_waiting_in()  # nobody waits: no pause

    def reader() -> None:
        with lock.hold("read", urgent=True):
            order.append("reader")

    writing = threading.Thread(target=importer)
    writing.start()
    first_piece_done.wait(10)
    reading = threading.Thread(target=reader)
    reading.start()
    writing.join(10)
    reading.join(10)
    assert order == ["first piece", "reader", "second piece"]
    assert lock.times.summary()["import"]["count"] == 2  # each piece a hold of its own


def test_an_import_pauses_between_its_batches(engine: LocalEngine) -> None:
    """The service's engine lets waiting readers in there (`between_batches`)."""
    pauses: list[int] = []
    engine.between_batches = lambda: pauses.append(len(pauses))
    lines = [header_line()] + [
        dump_line(engine.materialise(MemoryDraft(content=f"Service {i} listens on port {i}")))
        for i in range(WRITE_BATCH * 2 + 1)
    ]
    assert engine.upkeep.import_lines(lines).memories == WRITE_BATCH * 2 + 1
    assert pauses == [0, 1]
