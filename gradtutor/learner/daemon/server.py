"""The warm checker's side: answer `gradtutor check` requests, one at a time, until idle.

Request (one JSON line): {"lesson", "exercise", "path", "source", "seeds", "timeout", "memory_mb",
"json", "console": {"width", "terminal", "colour"}} — or {"stop": true}.
Reply (one JSON line): {"output", "exit_code", "statuses"}, or {"error", "exit_code"} for a
GradtutorError (the CLI prints it as its own), or {"crash"} (the CLI then checks in-process).
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

from gradtutor.course import manifest as course
from gradtutor.learner import daemon
from gradtutor.course import extract
from gradtutor.learner import verdict_view as report
from gradtutor.errors import GradtutorError

POLL = 30.0  # seconds between looks at the idle clock and the package


class Server:
    def __init__(self, key: str):
        self.key = key
        self.path = daemon.socket_path(key)
        self.checkers: dict = {}  # memory_mb → Checker
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
            stream.write(json.dumps({"stopped": True}) + "\n")
            stream.flush()
            return "stop"
        try:
            reply = self.check(request)
        except GradtutorError as exc:
            reply = {"error": str(exc), "exit_code": exc.exit_code}
        except Exception as exc:  # noqa: BLE001 - the CLI falls back to checking in-process
            self._drop(request)
            reply = {"crash": f"{exc.__class__.__name__}: {exc}"}
        try:
            stream.write(json.dumps(reply) + "\n")
            stream.flush()
        except OSError:
            pass  # the CLI went away (Ctrl-C): the next request finds the checker as it was
        return None

    def check(self, request: dict) -> dict:
        from gradtutor.checking.checker import Checker

        lesson = course.load().lesson(request["lesson"])
        exercises = [lesson.exercise(request["exercise"])] if request.get("exercise") else None
        cells = extract.read_cells(Path(request["path"]))
        memory_mb = request.get("memory_mb")
        checker = self.checkers.get(memory_mb)
        if checker is None:
            checker = self.checkers[memory_mb] = Checker(memory_mb=memory_mb, prepare_next=True)
        checker.timeout = float(request["timeout"])
        result = checker.check_cells(lesson, cells, exercises, request.get("seeds", "all"), request["source"])
        if request.get("json"):
            output = report.to_json(result) + "\n"
        else:
            output = _render(result, request.get("console") or {})
        return {"output": output, "exit_code": result.exit_code,
                "statuses": {e.id: e.status.value for e in result.exercises}}

    def _drop(self, request: dict) -> None:
        checker = self.checkers.pop(request.get("memory_mb"), None)
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
