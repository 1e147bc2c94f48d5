"""The askers' side of the warm checker (`gradtutor check`, a notebook kernel's check()): ask it, starting it when it is not there.

Every failure to reach it returns None: `gradtutor check` then checks in-process and a kernel starts a
judge of its own, as without a daemon; a GradtutorError it reports is raised here as the CLI's own.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

from gradtutor.learner import daemon
from gradtutor.errors import GradtutorError
from gradtutor.messages import say
from gradtutor.payloads import CheckReply, CheckRequest, DaemonStop

START_TIMEOUT = 20.0  # seconds for a new daemon to listen (it imports TensorFlow after that)
REPLY_TIMEOUT = 900.0


def exchange(request: CheckRequest) -> CheckReply | None:
    """The daemon's reply as it came ({problem} included), or None when it cannot be used (not there, crashed)."""
    try:
        key = daemon.package_key()
        path = daemon.socket_path(key)
        connection = _connect(str(path)) or _start_and_connect(key, str(path))
        if connection is None:
            return None
        with connection:
            connection.settimeout(REPLY_TIMEOUT)
            stream = connection.makefile("rw", encoding="utf-8", newline="\n")
            stream.write(json.dumps(request) + "\n")
            stream.flush()
            reply = json.loads(stream.readline() or "null")
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) and "crash" not in reply else None


def ask(request: CheckRequest) -> CheckReply | None:
    """The daemon's reply to a terminal's check request, or None when it cannot be used."""
    reply = exchange(request)
    if reply is None:
        return None
    if "problem" in reply:
        error = GradtutorError(reply["problem"])
        error.exit_code = int(reply.get("exit_code", error.exit_code))
        raise error
    return reply


def check_warm(args, lesson, path, console) -> int | None:
    """`gradtutor check` through the warm checker: print, record progress, return the exit code; None if off.

    console: the CLI's rich console (the table is drawn for its width and colours), None for --json.
    """
    from gradtutor.learner import workspace

    if daemon.disabled(args.no_daemon):
        return None
    request: CheckRequest = {
        "lesson": lesson.id, "exercise": args.exercise, "path": str(path.resolve()), "source": str(path),
        "seeds": args.seeds, "timeout": args.timeout, "memory_mb": args.memory_mb, "json": args.json,
        "console": {"width": console.width, "terminal": console.is_terminal, "colour": console.color_system}
        if console is not None else {}}
    if console is not None and console.is_terminal:
        with console.status(say("check.checking_warm", lesson=lesson.id)):
            reply = ask(request)
    else:
        reply = ask(request)
    if reply is None:
        return None
    workspace.record(path, lesson.id, reply["statuses"])
    sys.stdout.write(reply["output"])
    sys.stdout.flush()
    return int(reply["exit_code"])


def start_soon() -> None:
    """Start the daemon if it is not there, without waiting for it (a lesson's set-up cell: prestart())."""
    try:
        key = daemon.package_key()
        connection = _connect(str(daemon.socket_path(key)))
        if connection is not None:
            connection.close()
            return
        _spawn(key)
    except OSError:
        pass  # the first check starts it, or starts a judge of its own


def stop_all() -> int:
    """Ask every daemon of this user's state folder (each language's, each package's) to exit; how many answered."""
    try:
        sockets = sorted(daemon.run_dir().glob("check-*.sock"))
    except OSError:
        return 0
    return sum(_stop_at(path) for path in sockets)


def stop() -> bool:
    """Ask this package's daemon (if any) to exit; True if one answered."""
    try:
        return _stop_at(daemon.socket_path())
    except OSError:
        return False


def _stop_at(path) -> bool:
    try:
        connection = _connect(str(path))
        if connection is None:
            return False
        with connection:
            connection.settimeout(30)
            stop: DaemonStop = {"stop": True}
            connection.sendall(json.dumps(stop).encode() + b"\n")
            return bool(connection.makefile("r").readline())
    except OSError:
        return False


def _connect(path: str) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        return connection
    except OSError:
        connection.close()
        return None


def _spawn(key: str) -> None:
    """The daemon, in a session of its own: it serves every kernel and terminal of this user, whoever started it."""
    log = daemon.run_dir() / f"check-{key}.log"
    with open(log, "ab") as sink:
        subprocess.Popen([sys.executable, "-m", "gradtutor.learner.daemon", key], stdin=subprocess.DEVNULL,
                         stdout=sink, stderr=sink, cwd=str(daemon.run_dir()), start_new_session=True,
                         close_fds=True, env=os.environ.copy())


def _start_and_connect(key: str, path: str) -> socket.socket | None:
    _spawn(key)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        connection = _connect(path)
        if connection is not None:
            return connection
        time.sleep(0.05)
    return None
