"""The Dask task of `gradtutor grade --scheduler`: hand one submission to this worker's grading host.

Runs inside a `dask worker` process. The grading itself happens in a grading host
(gradtutor.classroom.cluster.dask_host), a process of its own fenced off the network, kept warm
between tasks: one per task running at the same time on this worker (`--nthreads`).
The task only carries bytes both ways, so the worker needs no access to the course folder.

A host that dies or stalls past the submission's time is stopped, and the submission
is reported as stopped (scored 0). If the whole worker dies, Dask runs the task again
on another worker, up to the scheduler's `allowed-failures`; the host notices that its
worker is gone and stops too.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time

from gradtutor import defaults
from gradtutor.isolation import ipc
from gradtutor.messages import say
from gradtutor.payloads import CourseKit, RemoteGrade

# A host starts nbgrader and a warm checker before its first job; the job's own time is on top.
START_TIMEOUT = defaults.GRADING_WORKER_READY_TIMEOUT

_idle: list["HostProcess"] = []
_lock = threading.Lock()


def course_kit(kit: CourseKit) -> CourseKit:
    """A task that only hands the kit on: the grading tasks depend on it, so it travels once to each worker."""
    return kit


def grade_submission(kit: CourseKit, student: str, files: dict[str, str]) -> RemoteGrade:
    """The Dask task: grade one student's files with the course kit; return what the instructor's process writes."""
    with _lock:
        host = _idle.pop() if _idle else None
    if host is None or not host.alive:
        host = HostProcess()
    reply = host.ask({"kit": kit, "student": student, "files": files},
                     kit["timeout"] + START_TIMEOUT * 2)  # the host's Pool may start a grading process too
    if reply is None:
        host.kill()
        reply = RemoteGrade(result={"student": student, "graded": False, "stopped": True,
                                    "problem": say("classroom.dask.host_died", lang=kit.get("lang"))})
    else:
        with _lock:
            _idle.append(host)
    reply["worker"] = _worker_address()
    return reply


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return ""


class HostProcess:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "gradtutor.classroom.cluster.dask_host"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        start_new_session=True)  # its kernels are never the worker's group
        self.messages = ipc.MessageReader(self.process.stdout, alive=lambda: self.alive, chunk=1 << 20)
        self.ready = False
        self.fence: list[str] = []

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def ask(self, job: dict, seconds: float) -> RemoteGrade | None:
        deadline = time.monotonic() + seconds
        if not self.ready:
            hello = self.messages.read_message(time.monotonic() + START_TIMEOUT)
            if not hello or not hello.get("ready"):
                return None
            self.ready, self.fence = True, hello.get("fence", [])
        try:
            ipc.send(self.process.stdin, job)
        except OSError:
            return None
        return self.messages.read_message(deadline)

    def kill(self) -> None:
        from gradtutor.classroom.grading.pool import kill_tree

        kill_tree(self.process.pid)
        self.process.wait()
        self.messages.close()
