"""One judge for every kernel a grading process starts (gradtutor.learner.notebook.SharedJudgeClient's other end).

A host of the one check service (gradtutor.checking.service) on a Unix socket: the classroom serves the
same requests and replies as a kernel's own judge without importing the learner's front end.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading

from gradtutor.checking.service import Answer, CheckService, serve_lines
from gradtutor.classroom.grading.recheck import checker_lock, close_checker, warm_checker
from gradtutor.messages import say


class SharedJudge:
    """A kernel judge's answers, from one warm checker, for every kernel this worker runs.

    A kernel's check() finds it through GRADTUTOR_JUDGE (see gradtutor.learner.notebook.SharedJudgeClient)
    and asks exactly what it would ask a judge process of its own; the answers come from
    the same service (gradtutor.checking.service), so the verdicts are the same — only the TensorFlow
    import and the reference answers are not paid again for every submission. Nothing is recorded
    after a reply: a submission is no learner's workspace.
    """

    def __init__(self, course_dir: str):
        import socket

        self.folder = tempfile.mkdtemp(prefix="gradtutor-judge-")  # mode 0700: this user's kernels only
        self.path = os.path.join(self.folder, "judge.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(8)
        self._connections: set = set()
        self._lock = threading.Lock()
        # its checker prepares no next child (prepare_next=False): an answer's settle() needs no lock
        self.service = CheckService(lambda request: warm_checker())
        with checker_lock:
            warm_checker(course_dir)  # the course's hidden inputs: its secret never leaves this process
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with self._lock:
                self._connections.add(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def hang_up(self) -> None:
        """After each submission: whatever its kernel left behind cannot ask on a later student's time."""
        import socket

        with self._lock:
            connections, self._connections = self._connections, set()
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _serve(self, connection) -> None:
        from gradtutor.isolation.ipc import MessageReader

        requests = MessageReader(connection)
        with connection:
            try:
                serve_lines(requests, connection, self._answer)
            except (OSError, ValueError):
                return  # the kernel went away
            finally:
                requests.close()

    def _answer(self, line: bytes) -> Answer:
        with checker_lock:
            try:
                return self.service.answer_line(line)
            except Exception as exc:  # noqa: BLE001 - one bad request never stops the judge
                return Answer({"problem": say("classroom.problem.checker_failed", error=exc.__class__.__name__)})

    def close(self) -> None:
        self.hang_up()
        try:
            self.server.close()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            close_checker()
