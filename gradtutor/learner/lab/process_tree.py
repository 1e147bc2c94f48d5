"""The processes below a process, read from /proc, and ending them: what `gradtutor lab` started must not outlive it.

JupyterLab starts each kernel in a session of its own, and a kernel's judge and checker below it; a
signal to the server's process group reaches none of them. The server shuts its kernels down when
it stops cleanly, but one killed after its grace period cannot. So `gradtutor lab` notes the whole
tree before it stops the server, and ends whatever of it is still there afterwards.

A process is named by its pid and its start time (in clock ticks since boot), so a pid the system
has since given to another process is never signalled. Where there is no /proc (macOS), the tree is
empty and the server's own clean shutdown is all there is.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

PROC = Path("/proc")


@dataclasses.dataclass(frozen=True)
class Process:
    pid: int
    started: int  # clock ticks after boot: with the pid, names the process for its whole life

    def alive(self) -> bool:
        found = _stat(self.pid)
        return found is not None and found[2] == self.started and found[0] != "Z"


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a live process, or None."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (command)": the command may hold spaces and ")"
    return fields[0], int(fields[1]), int(fields[19])


def all_processes() -> dict[int, tuple[str, int, int]]:
    """pid → (state, parent pid, start time) of every process this user can see."""
    found = {}
    try:
        entries = list(PROC.iterdir())
    except OSError:
        return {}
    for entry in entries:
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            found[int(entry.name)] = stat
    return found


def process(pid: int) -> Process | None:
    found = _stat(pid)
    return Process(pid, found[2]) if found else None


def descendants(pid: int) -> list[Process]:
    """Every live process below `pid` (children, theirs, ...), whatever session or group they are in."""
    table = all_processes()
    children: dict[int, list[int]] = {}
    for child, (_, parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, pending = [], list(children.get(pid, []))
    while pending:
        child = pending.pop()
        state, _, started = table[child]
        if state != "Z":
            found.append(Process(child, started))
        pending.extend(children.get(child, []))
    return found


def end(processes: list[Process], grace: float = 5.0) -> list[Process]:
    """SIGTERM each live one, SIGKILL those still there after `grace` seconds; return those that had to be ended."""
    ended = [p for p in processes if p.alive()]
    for victim in ended:
        _signal(victim, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(p.alive() for p in ended):
        time.sleep(0.1)
    for victim in ended:
        _signal(victim, signal.SIGKILL)
    return ended


def _signal(victim: Process, signum: int) -> None:
    if victim.alive():  # checked just before: the pid is still that process
        try:
            os.kill(victim.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
