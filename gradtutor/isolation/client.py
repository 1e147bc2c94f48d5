"""The parent's side of isolation: start the fork server, hand it jobs, enforce time limits.

This process never imports TensorFlow and never runs learner code. It reads
back only plain JSON and .npz arrays (gradtutor.isolation.results), and a
result counts only if it carries the nonce this job was given.
"""
from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradtutor import messages
from gradtutor.defaults import MEMORY_MB, WORKER_IMPORT_TIMEOUT
from gradtutor.errors import CheckerUnavailable as WorkerFailed  # noqa: F401 - raised here, caught by its base class
from gradtutor.isolation import ipc, landlock
from gradtutor.isolation.results import Outcome, collect, filled
from gradtutor.protocol import Job, WorkerMessage

SERVER = "gradtutor.isolation.server"


@dataclasses.dataclass
class Prepared:
    """A job the worker has started: its folder, nonce, child pid and how many results to expect."""

    out: Path
    nonce: str
    pid: int
    count: int


class Worker:
    """A long-lived `python -m gradtutor.isolation.server` that forks one child per job."""

    def __init__(self, memory_mb: int | None = MEMORY_MB, hide: list[str] | None = None):
        self.memory_mb = memory_mb
        self.hide = list(hide or [])  # files its children's learner code may not read (policy.enforce)
        self._process: subprocess.Popen | None = None
        self._messages: ipc.MessageReader | None = None
        self._jobs = 0
        self._prepared = None  # (lesson id, seeds, Prepared): a learner child waiting for cells
        self.start()

    # -- life cycle -------------------------------------------------------------------
    def start(self) -> None:
        env = landlock.started_by(os.environ)
        env["PYTHONHASHSEED"] = "0"  # same verdicts whatever the caller's hash seed
        env["GRADTUTOR_LANG"] = messages.language()  # its problems in our words, though it runs in another folder
        self._process = subprocess.Popen(
            [sys.executable, "-m", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # Ctrl-C in the terminal reaches us, and we stop it cleanly
        )
        self._messages = ipc.MessageReader(self._process.stdout)
        self._ready = False

    def wait_ready(self) -> None:
        """Block until TensorFlow is imported in the worker (the slow part of the first check)."""
        if self._ready:
            return
        message = self._read_message(time.monotonic() + WORKER_IMPORT_TIMEOUT)
        if not message or not message.get("ready"):
            self.close()
            raise WorkerFailed("the checker's worker could not import TensorFlow — run `python -c 'import tensorflow'` to see why")
        self._ready = True

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def close(self) -> None:
        self._drop_prepared()
        process, self._process = self._process, None
        if process is None:
            return
        if not self._ready:  # still importing TensorFlow: nothing to finish, stop it now
            _kill_group(process.pid)
        try:
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            process.wait()
        if self._messages:
            self._messages.close()

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- jobs ---------------------------------------------------------------------------
    def run(self, job: Job, timeout: float) -> Outcome:
        """Run one job in a fresh child. Each exercise gets `timeout` seconds, counted from
        when the previous one finished; after that the child is killed."""
        self._drop_prepared()  # the worker runs one job at a time
        started = self._start_job(job)
        if isinstance(started, Outcome):
            return started
        return self._finish_job(started, timeout)

    # -- learner jobs, with one child kept prepared ---------------------------------------
    def prepare_learner(self, lesson_id: str, seeds, exercises: list) -> None:
        """Leave a learner child waiting with `lesson_id`'s inputs built for `seeds` (replacing any other)."""
        self._drop_prepared()
        job = {"kind": "learner", "lesson": lesson_id, "seeds": list(seeds), "exercises": exercises}
        prepared = self.prepare(job)
        if prepared is not None:
            self._prepared = (lesson_id, tuple(seeds), prepared)

    def run_learner(self, lesson_id: str, seeds: list, exercises: list, cells: list, timeout: float) -> Outcome:
        """Run learner code on fresh inputs: in the prepared child when it was built for this lesson and seeds."""
        prepared, self._prepared = self._prepared, None
        if prepared and prepared[0] == lesson_id and set(seeds) <= set(prepared[1]):
            return self.finish(prepared[2], cells, exercises, seeds, timeout)
        if prepared:
            self.cancel(prepared[2])
        return self.run({"kind": "learner", "lesson": lesson_id, "cells": cells, "seeds": seeds,
                         "exercises": exercises}, timeout)

    def _drop_prepared(self) -> None:
        prepared, self._prepared = getattr(self, "_prepared", None), None
        if prepared is not None:
            self.cancel(prepared[2])

    def prepare(self, job: Job) -> "Prepared | None":
        """Start a learner job now, without its cells: it builds inputs and waits (see `finish`).
        The worker runs nothing else until it is finished or cancelled."""
        out = Path(tempfile.mkdtemp(prefix="gradtutor-job-"))
        fifo = out / "cells.fifo"
        os.mkfifo(fifo, 0o600)
        started = self._start_job(dict(job, cells=[], cells_fifo=str(fifo)), out)
        return None if isinstance(started, Outcome) else started

    def finish(self, prepared: "Prepared", cells: list, exercises: list, seeds: list, timeout: float) -> Outcome:
        """Hand a prepared job its cells, and which of the exercises and seeds it prepared to run."""
        prepared.count = len(exercises)
        payload = json.dumps({"cells": cells, "exercises": exercises, "seeds": seeds}).encode()
        deadline = time.monotonic() + WORKER_IMPORT_TIMEOUT
        while time.monotonic() < deadline and _exists(prepared.pid):
            try:  # non-blocking open fails until the child, still building inputs, opens its end
                fd = os.open(prepared.out / "cells.fifo", os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
                continue
            os.set_blocking(fd, True)
            try:
                ipc.write_all(fd, payload)
            except OSError:
                pass  # the child is gone: reported below like any other early end
            finally:
                os.close(fd)
            break
        return self._finish_job(prepared, timeout)

    def cancel(self, prepared: "Prepared") -> None:
        _kill_group(prepared.pid)
        self._read_message(time.monotonic() + 10)
        shutil.rmtree(prepared.out, ignore_errors=True)

    def _start_job(self, job: Job, out: Path | None = None) -> "Prepared | Outcome":
        if not self.alive:
            self.start()
        self.wait_ready()
        self._jobs += 1
        count = len(job["exercises"])
        out = out or Path(tempfile.mkdtemp(prefix="gradtutor-job-"))
        nonce = secrets.token_hex(16)
        request = Job(job, id=self._jobs, nonce=nonce, out=str(out), memory_mb=self.memory_mb, hide=self.hide)
        try:
            ipc.send(self._process.stdin, request)
            started = self._read_message(time.monotonic() + 30)
        except OSError:
            started = None
        if not started or "pid" not in started:
            self.close()
            shutil.rmtree(out, ignore_errors=True)
            return Outcome([None] * count, None, problem=messages.say("check.worker_problem.stopped_unexpectedly"))
        return Prepared(out, nonce, started["pid"], count)

    def _finish_job(self, job: "Prepared", timeout: float) -> Outcome:
        try:
            finished, timed_out = self._wait(job.out, job.count, timeout)
            if timed_out:
                _kill_group(job.pid)
                finished = self._read_message(time.monotonic() + 10)
            if finished is None:  # the worker itself died: whatever the orphaned child wrote is not trusted
                _kill_group(job.pid)
                self.close()
                return Outcome([None] * job.count, None, timed_out=timed_out,
                               problem=messages.say("check.worker_problem.stopped_while_running"))
            return collect(job.out, job.nonce, job.count, finished.get("exit"), timed_out)
        finally:
            shutil.rmtree(job.out, ignore_errors=True)

    def _wait(self, out: Path, count: int, timeout: float) -> tuple[WorkerMessage | None, bool]:
        """The worker's exit message; (None, True) when an exercise ran past its time."""
        done = 0
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(min(deadline, time.monotonic() + 0.05))
            if message is not None or self._messages.eof or not self.alive:
                return message, False
            now_done = filled(out, count)
            if now_done > done:  # progress: the next exercise gets its full time
                done, deadline = now_done, time.monotonic() + timeout
            elif time.monotonic() >= deadline:
                return None, True

    def _read_message(self, deadline: float) -> WorkerMessage | None:
        """The next message from the worker, or None on timeout or once it is gone."""
        if self._process is None:
            return None
        return self._messages.read_message(deadline)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_group(pid: int) -> None:
    """Kill a child and all it started. A child just forked has no group of its own yet (os.setsid is its
    first step): then it is killed by its pid, or cancelling it would wait out its time."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
