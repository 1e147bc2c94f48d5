"""Does the one JSON-lines reader keep to its deadline, tell end of stream apart, and skip what is not a message?"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from gradtutor.isolation import ipc
import pytest

pytestmark = pytest.mark.unit


def test_are_messages_read_in_order_across_partial_writes():
    read_end, write_end = os.pipe()
    reader = ipc.MessageReader(read_end)
    ipc.send(write_end, {"n": 1})
    os.write(write_end, b'{"n": 2}\n{"n"')
    assert reader.read_message(time.monotonic() + 5) == {"n": 1}
    assert reader.read_message(time.monotonic() + 5) == {"n": 2}
    os.write(write_end, b': 3}\n')
    assert reader.read_message(time.monotonic() + 5) == {"n": 3}
    os.close(write_end)
    assert reader.read_message(time.monotonic() + 5) is None and reader.eof
    reader.close()
    os.close(read_end)


def test_does_a_silent_peer_cost_only_the_deadline():
    read_end, write_end = os.pipe()
    reader = ipc.MessageReader(read_end)
    started = time.monotonic()
    assert reader.read_message(started + 0.2) is None
    assert 0.2 <= time.monotonic() - started < 2 and not reader.eof
    reader.close()
    os.close(read_end)
    os.close(write_end)


def test_is_a_line_that_is_not_an_object_skipped_not_fatal():
    read_end, write_end = os.pipe()
    reader = ipc.MessageReader(read_end)
    os.write(write_end, b'not json\n[1, 2]\n\n{"ok": true}\n')
    assert [reader.read_message(time.monotonic() + 5) for _ in range(4)] == [None, None, None, {"ok": True}]
    assert reader.read_line(time.monotonic() + 0.05) is None and not reader.eof
    reader.close()
    os.close(read_end)
    os.close(write_end)


def test_does_a_dead_process_end_the_wait_at_once():
    process = subprocess.Popen([sys.executable, "-c", "import os; os.close(1); import time; time.sleep(30)"],
                               stdout=subprocess.PIPE)
    try:
        reader = ipc.MessageReader(process.stdout, alive=lambda: process.poll() is None)
        process.kill()
        process.wait()
        started = time.monotonic()
        assert reader.read_message(started + 30) is None
        assert time.monotonic() - started < 5
    finally:
        process.kill()
        process.wait()


def test_does_it_serve_sockets_too():
    one, other = socket.socketpair()
    with one, other:
        reader = ipc.MessageReader(other)
        ipc.send(one, {"status": "pass"})
        assert reader.read_message() == {"status": "pass"}
        one.shutdown(socket.SHUT_RDWR)
        assert reader.read_line() is None and reader.eof
        reader.close()
