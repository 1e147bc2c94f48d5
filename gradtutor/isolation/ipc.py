"""JSON lines over pipes and sockets: one message a line, read with a deadline.

Every process boundary in gradtutor speaks this way: the checker and its fork
server, a notebook kernel and its judge (pipe or Unix socket), the classroom
pool and its grading processes. Both sides go through here, so a message is
always one `json.dumps` line ending in "\\n", and a reader never blocks past
its deadline on a peer that stopped talking.

A reader works on the raw file descriptor with a buffer of its own (never a
Python file object's hidden buffer, which `select` cannot see). It answers
None on timeout, at end of stream (then `eof` is set and stays set) and for a
line that is not a JSON object; each caller decides what that None means.
"""
from __future__ import annotations

import json
import os
import selectors
import time
from typing import Callable

CHUNK = 1 << 16


class MessageReader:
    """Lines from one file descriptor (a pipe's or a socket's), each awaited until a deadline.

    alive: for a peer that is a process, whether it still runs; when it has ended and nothing is
    left to read, the reader stops waiting at once instead of at its deadline.
    """

    def __init__(self, source, alive: Callable[[], bool] | None = None, chunk: int = CHUNK):
        self._fd = source if isinstance(source, int) else source.fileno()
        self._alive = alive
        self._chunk = chunk
        self._buffer = b""
        self.eof = False  # the peer closed its end: no line will ever come after the buffered ones
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)

    def read_line(self, deadline: float | None = None) -> bytes | None:
        """The next line without its newline; None on timeout (deadline: time.monotonic()) or at end of stream."""
        while b"\n" not in self._buffer:
            if self.eof or not self._wait(deadline):
                return None
            chunk = os.read(self._fd, self._chunk)
            if not chunk:
                self.eof = True
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def read_message(self, deadline: float | None = None) -> dict | None:
        """The next line as a JSON object; None on timeout, at end of stream, or for anything else."""
        line = self.read_line(deadline)
        if line is None:
            return None
        try:
            message = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            return None
        return message if isinstance(message, dict) else None

    def _wait(self, deadline: float | None) -> bool:
        """Until there is something to read (True) or the deadline passed (False)."""
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            if self._alive is not None:
                if not self._alive() and not self._selector.select(0):
                    return False  # the process ended and left nothing more to read
                remaining = 1.0 if remaining is None else min(remaining, 1.0)  # look at it again soon
            if self._selector.select(remaining):
                return True

    def close(self) -> None:
        self._selector.close()


def encode(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def send(target, message: dict) -> None:
    """Write one message to a file descriptor, pipe or socket (anything with fileno()); OSError if it is gone."""
    fd = target if isinstance(target, int) else target.fileno()
    write_all(fd, encode(message))


def write_all(fd: int, data: bytes) -> None:
    """All of `data`, however many writes the pipe takes."""
    while data:
        data = data[os.write(fd, data):]
