"""The parent's side of batch grading: N grading processes, a student at a time each, stopped after --timeout."""
from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gradtutor import defaults
from gradtutor.classroom.grading.nbgrader_glue import kernel_socket_dir
from gradtutor.classroom.grading.results import SubmissionResult
from gradtutor.isolation import ipc
from gradtutor.messages import say
from gradtutor.protocol import GradingJob

# a worker imports nbgrader (slow on a loaded machine) before its first job
READY_TIMEOUT = defaults.GRADING_WORKER_READY_TIMEOUT


class Pool:
    """Worker processes that each run nbgrader's Autograde for one student at a time."""

    def __init__(self, course_dir: Path, logs: Path, size: int, timeout: float):
        self.course_dir = course_dir
        self.logs = logs
        self.timeout = timeout
        self.size = size
        self._workers: list[GradingProcess | None] = [GradingProcess(course_dir, logs / f"worker-{i}.log") for i in range(size)]
        self._count = size

    def resize(self, size: int) -> None:
        """As many workers as will have work (the first count may have missed a custom layout)."""
        size = max(1, size)
        while len(self._workers) > size:
            worker = self._workers.pop()
            if worker is not None:
                worker.close()
        while len(self._workers) < size:
            self._count += 1
            self._workers.append(GradingProcess(self.course_dir, self.logs / f"worker-{self._count}.log"))
        self.size = len(self._workers)

    def grade(self, assignment: str, students: list[str], force: bool):
        """Yield a SubmissionResult per student, as each finishes."""
        jobs: queue.Queue = queue.Queue()
        for student in students:
            jobs.put(student)
        done: queue.Queue = queue.Queue()

        lock = threading.Lock()

        def slot(index: int) -> None:
            while True:
                try:
                    student = jobs.get_nowait()
                except queue.Empty:
                    return
                worker = self._workers[index]
                if worker is None:  # the last one was stopped: a fresh one for this student
                    with lock:
                        self._count += 1
                        number = self._count
                    worker = self._workers[index] = GradingProcess(self.course_dir, self.logs / f"worker-{number}.log")
                try:
                    result = worker.grade(assignment, student, force, self.timeout)
                except Exception as exc:  # noqa: BLE001 - one broken submission never stops the batch
                    worker.kill()
                    result = SubmissionResult(student, graded=False, problem=say("classroom.could_not_grade", error=exc),
                                              stopped=True)
                if not worker.alive:  # killed after a timeout, or it died
                    worker.close()
                    self._workers[index] = None
                done.put(result)

        threads = [threading.Thread(target=slot, args=(i,), daemon=True) for i in range(len(self._workers))]
        for thread in threads:
            thread.start()
        for _ in students:
            yield done.get()
        for thread in threads:
            thread.join()

    def close(self) -> None:
        for worker in self._workers:
            if worker is not None:
                worker.close()


class GradingProcess:
    """One grading process (gradtutor.classroom.grading.grading_worker.serve); its kernels are its children."""

    def __init__(self, course_dir: Path, log: Path):
        self.log = log
        env = dict(os.environ)  # the kernels inherit it, as they inherit nbgrader's
        env["PYTHONUNBUFFERED"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from gradtutor.classroom.grading.grading_worker import serve; serve()", str(course_dir), str(log)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True,  # Ctrl-C reaches the parent, which stops the workers cleanly
        )
        # a result line can be large (every notebook's cells); a dead process ends the wait at once
        self._messages = ipc.MessageReader(self.process.stdout, alive=lambda: self.alive, chunk=1 << 20)
        self._ready = False

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def grade(self, assignment: str, student: str, force: bool, timeout: float) -> SubmissionResult:
        if not self._ready:
            message = self._messages.read_message(time.monotonic() + READY_TIMEOUT)
            if not message or not message.get("ready"):
                self.kill()
                why = (message or {}).get("error", self._log_tail() or say("classroom.problem.no_reason"))
                return SubmissionResult(student, graded=False, problem=say("classroom.problem.cannot_start", why=why),
                                        stopped=True)
            self._ready = True
        started = time.monotonic()  # the submission's time starts once nbgrader is loaded
        try:
            ipc.send(self.process.stdin, GradingJob(assignment=assignment, student=student, force=force))
        except OSError:
            self.kill()
            return SubmissionResult(student, graded=False, problem=say("classroom.problem.stopped"), stopped=True)
        message = self._messages.read_message(started + timeout)
        seconds = time.monotonic() - started
        if message is None:
            timed_out = self.alive
            self.kill()
            why = (say("classroom.problem.timed_out", seconds=f"{timeout:g}") if timed_out
                   else say("classroom.problem.died"))
            return SubmissionResult(student, graded=False, problem=why, seconds=seconds, stopped=True)
        result = SubmissionResult.from_json(message)
        result.seconds = seconds
        return result

    def _log_tail(self) -> str:
        try:
            lines = [l for l in self.log.read_text(errors="replace").splitlines() if l.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def kill(self) -> None:
        """Stop the worker and everything it started (kernels run in sessions of their own)."""
        if self.process is None:
            return
        kill_tree(self.process.pid)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(kernel_socket_dir(self.process.pid), ignore_errors=True)  # its kernels' sockets

    def close(self) -> None:
        if self.process is None:
            return
        if self.alive:
            try:
                self.process.stdin.close()  # the worker ends after its current job
                self.process.wait(timeout=5 if self._ready else 0.1)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._messages.close()
        self.process = None


def kill_tree(pid: int) -> None:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with ipykernel
        psutil = None
    victims = []
    if psutil is not None:
        try:
            victims = psutil.Process(pid).children(recursive=True)
        except psutil.Error:
            victims = []
    for process in [*victims]:
        try:
            process.kill()
        except Exception:  # noqa: BLE001 - gone already
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for process in victims:  # their own sessions: kernels, gradtutor's checker workers
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
