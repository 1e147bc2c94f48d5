"""The warm checker's side: answer `gradtutor check` and every notebook kernel's check(), one at a time, until idle.

A host of the one check service (gradtutor.checking.service) on a Unix socket. Request (one JSON
line): a CheckRequest {"lesson", "exercise", "path", "source", "seeds", "timeout", "memory_mb", "json",
"console": {"width", "terminal", "colour"}} from the terminal, or one with "cells" (and "function",
"notebook") from a kernel's check(); or {"stop": true} (DaemonStop). Reply (one JSON line): the service's
CheckReply, for the terminal with "output" added, the table (or --json) drawn here for the CLI's terminal;
{"problem", "exit_code"} for a GradtutorError (the CLI prints it as its own), or {"crash"} (the asker
then checks in a process of its own). A kernel's verdict is recorded as its notebook's progress here,
after the reply, as a kernel's own judge records it (gradtutor.learner.judge).

One daemon for every lesson open in JupyterLab and the terminal: a second open lesson adds its kernel
and no checker. Each check still runs in a child of its own (the Checker's isolation).
"""
from __future__ import annotations

import io
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path

from gradtutor.defaults import EXERCISE_TIMEOUT, MEMORY_MB
from gradtutor.learner import daemon, workspace
from gradtutor.learner import verdict_view as report
from gradtutor.payloads import CheckReply, CheckRequest, DaemonStop

POLL = 30.0  # seconds between looks at the idle clock and the package


class Server:
    def __init__(self, key: str):
        self.key = key
        self.path = daemon.socket_path(key)
        self.checkers: dict = {}  # memory_mb → Checker
        self.service = None  # made at the first request: the service imports the checker (numpy and more)
        self.listener = _bind(self.path)
        self.inode = self.path.stat().st_ino

    def serve(self) -> None:
        last = time.monotonic()
        self.listener.settimeout(min(POLL, max(daemon.idle_seconds(), 0.5)))
        try:
            while True:
                try:
                    connection, _ = self.listener.accept()
                except socket.timeout:
                    if time.monotonic() - last > daemon.idle_seconds() or daemon.package_key() != self.key:
                        return
                    continue
                with connection:
                    if not _same_user(connection):
                        continue
                    if self._serve_one(connection) == "stop":
                        return
                last = time.monotonic()
        finally:
            self.close()

    def _serve_one(self, connection: socket.socket) -> str | None:
        connection.settimeout(None)
        stream = connection.makefile("rw", encoding="utf-8", newline="\n")
        line = stream.readline()
        if not line.strip():
            return None
        request = json.loads(line)
        if request.get("stop"):
            stopped: DaemonStop = {"stopped": True}
            stream.write(json.dumps(stopped) + "\n")
            stream.flush()
            return "stop"
        answer = None
        try:
            answer = self._service().answer(request)
            reply = answer.reply
            from_kernel = "cells" in request  # a notebook's check(): the kernel shows the verdict itself
            if answer.result is not None and not from_kernel:  # the CLI's rendering, here where rich is warm
                reply["output"] = _output(answer.result, request)
        except Exception as exc:  # noqa: BLE001 - the CLI falls back to checking in-process
            self._drop(request)
            answer, reply = None, CheckReply(crash=f"{exc.__class__.__name__}: {exc}")
        try:
            stream.write(json.dumps(reply) + "\n")
            stream.flush()
        except OSError:
            pass  # the CLI went away (Ctrl-C): the next request finds the checker as it was
        if answer is not None:  # after the reply: the CLI prints while the next check's child is prepared
            if "cells" in request:  # a learner workspace's progress, as the kernel's own judge records it
                workspace.record_judged(request, answer.reply)
            try:
                answer.settle()
            except Exception:  # noqa: BLE001 - the next check starts a child of its own, in a fresh checker
                self._drop(request)
        return None

    def _service(self):
        from gradtutor.checking.service import CheckService

        if self.service is None:
            self.service = CheckService(self._checker_for)
        return self.service

    def _checker_for(self, request: CheckRequest):
        """A checker per memory limit (the worker's children are started with it), at this request's time limit."""
        from gradtutor.checking.checker import Checker

        memory_mb = request.get("memory_mb", MEMORY_MB)  # a kernel's check() asks for the defaults, as its judge did
        checker = self.checkers.get(memory_mb)
        if checker is None:
            checker = self.checkers[memory_mb] = Checker(memory_mb=memory_mb, prepare_next=True)
        checker.timeout = float(request.get("timeout", EXERCISE_TIMEOUT))
        return checker

    def _drop(self, request: dict) -> None:
        checker = self.checkers.pop(request.get("memory_mb", MEMORY_MB), None)
        if checker is not None:
            checker.close()

    def close(self) -> None:
        for checker in self.checkers.values():
            checker.close()
        self.checkers.clear()
        self.listener.close()
        try:
            if self.path.is_socket() and self.path.stat().st_ino == self.inode:  # not a newer daemon's
                self.path.unlink()
        except OSError:
            pass


def _output(result, request: CheckRequest) -> str:
    """What `gradtutor check` prints: --json, or the table."""
    if request.get("json"):
        return report.to_json(result) + "\n"
    return _render(result, request.get("console") or {})


def _render(result, console_info: dict) -> str:
    """The table `gradtutor check` prints, drawn for the CLI's terminal (width, colours)."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, highlight=False, width=console_info.get("width") or 80,
                      force_terminal=bool(console_info.get("terminal")), color_system=console_info.get("colour"),
                      legacy_windows=False)
    report.print_lesson(console, result)
    return buffer.getvalue()


def _bind(path: Path) -> socket.socket:
    """Listen on `path`; exit quietly if a live daemon already does, replace a stale socket."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
    except OSError:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            sys.exit(0)  # another daemon got there first
        except OSError:
            path.unlink(missing_ok=True)
            listener.bind(str(path))
        finally:
            probe.close()
    os.chmod(path, 0o600)
    listener.listen(8)
    return listener


def _same_user(connection: socket.socket) -> bool:
    try:
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", credentials)
        return uid == os.getuid()
    except (OSError, AttributeError):
        return True  # no SO_PEERCRED here: the 0700 folder is the guard


def main() -> None:
    """`python -m gradtutor.learner.daemon [KEY]`, started by the CLI in a session of its own."""
    key = sys.argv[1] if len(sys.argv) > 1 else daemon.package_key()
    sys.stdout = sys.stderr
    Server(key).serve()
