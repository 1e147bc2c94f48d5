"""A Dask worker's grading host: fenced off the network, it autogrades submissions in course folders of its own.

Started by gradtutor.classroom.cluster.dask_task (`python -m gradtutor.classroom.cluster.dask_host`), it
first fences itself off the network (gradtutor.isolation.network), single-threaded, before
it starts anything: every grading process and notebook kernel it runs inherits the fence,
so learner code cannot reach the scheduler, the other workers or any other address.

Then, one RemoteJob a line on stdin, one RemoteGrade a line on the protocol pipe. For each
course kit it lays out a course folder (nbgrader_config.py with the paths pointed here, the
lesson's source folder, the student-less gradebook) and keeps a gradtutor Pool warm on it:
the submission is graded exactly as `gradtutor grade --jobs N` grades it on one machine
(nbgrader's Autograde, the sandboxed kernels, the shared judge, the re-check). The student's
files and gradebook rows are removed after each job; only the instructor's process keeps them.

It ends when stdin closes, or at once when the Dask worker that started it is gone.
"""
from __future__ import annotations

import base64
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from gradtutor import messages
from gradtutor.classroom.cluster.shipment import pack, read_rows, unpack
from gradtutor.isolation import ipc
from gradtutor.payloads import CourseKit, RemoteGrade, RemoteJob

# The kit's copy of the course lives here, whatever paths the instructor's own config names.
PATHS = '''

# gradtutor grade --scheduler: this copy of the course is a Dask worker's own
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = {db_url!r}
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.directory_structure = "{{nbgrader_step}}/{{student_id}}/{{assignment_id}}"
'''


class Host:
    def __init__(self):
        self.scratch = Path(tempfile.mkdtemp(prefix="gradtutor-dask-host-"))
        self.courses: dict[str, tuple[Path, object]] = {}  # kit digest -> (course folder, Pool)

    def course(self, kit: CourseKit):
        """The course folder and warm Pool for a kit, made on its first job."""
        if kit["digest"] not in self.courses:
            from gradtutor.classroom.grading.pool import Pool

            root = self.scratch / f"course-{len(self.courses)}"
            (root / "logs").mkdir(parents=True)
            config = base64.b64decode(kit["config"]).decode("utf-8")
            db_url = f"sqlite:///{root / 'gradebook.db'}"
            (root / "nbgrader_config.py").write_text(config + PATHS.format(root=str(root), db_url=db_url))
            (root / "gradebook.db").write_bytes(base64.b64decode(kit["gradebook"]))
            unpack(kit["source"], root / "source" / kit["assignment"])
            self.courses[kit["digest"]] = (root, Pool(root, root / "logs", 1, kit["timeout"]))
        return self.courses[kit["digest"]]

    def grade(self, job: RemoteJob) -> RemoteGrade:
        kit, student = job["kit"], job["student"]
        messages.use(kit.get("lang"))  # and GRADTUTOR_LANG: the grading processes word problems in the instructor's
        assignment = kit["assignment"]
        root, pool = self.course(kit)
        submitted = root / "submitted" / student / assignment
        autograded = root / "autograded" / student / assignment
        for folder in (submitted, autograded):
            shutil.rmtree(folder, ignore_errors=True)
        unpack(job["files"], submitted)
        try:
            [result] = list(pool.grade(assignment, [student], True))
            db_url = f"sqlite:///{root / 'gradebook.db'}"
            stamp, notebooks = (None, {}) if result.stopped else read_rows(db_url, kit["course_id"], assignment,
                                                                            student)
            return RemoteGrade(result=_as_json(result), files=pack(autograded), timestamp=stamp,
                               notebooks=notebooks)
        finally:
            _forget(root, kit, student)

    def close(self) -> None:
        for _, pool in self.courses.values():
            pool.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _as_json(result) -> dict:
    import dataclasses

    return dataclasses.asdict(result)


def _forget(root: Path, kit: CourseKit, student: str) -> None:
    """Nothing of a student stays on the worker: files, and the gradebook rows the next job would not need."""
    from nbgrader.api import Gradebook, MissingEntry

    for step in ("submitted", "autograded", "feedback"):
        shutil.rmtree(root / step / student, ignore_errors=True)
    try:
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}", kit["course_id"]) as gb:
            gb.remove_student(student)
    except MissingEntry:
        pass


def _die_with(parent: int, host: Host) -> None:
    """The Dask worker was killed: stop the grading (its processes run in sessions of their own) and end."""
    while os.getppid() == parent:
        time.sleep(1)
    threading.Thread(target=host.close, daemon=True).start()
    time.sleep(10)
    os._exit(1)


def main() -> None:
    from gradtutor.isolation import network

    parent = os.getppid()
    fence = network.fence()  # first, while this process has one thread
    protocol = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # nothing but messages on the protocol pipe
    os.dup2(devnull, 2)
    from gradtutor.dev.release import tools_on_path

    tools_on_path()  # nbgrader shells out to `alembic`
    host = Host()
    threading.Thread(target=_die_with, args=(parent, host), daemon=True).start()
    ipc.send(protocol, {"ready": True, "fence": fence})
    jobs = ipc.MessageReader(sys.stdin)
    try:
        while not jobs.eof:
            job = jobs.read_message()
            if job is None:
                continue
            try:
                reply = host.grade(job)
            except Exception as exc:  # noqa: BLE001 - the instructor's process scores it 0 and says why
                error, lang = f"{exc.__class__.__name__}: {exc}", (job.get("kit") or {}).get("lang")
                reply = RemoteGrade(result={"student": job.get("student", "?"), "graded": False, "stopped": True,
                                            "problem": messages.say("classroom.dask.host_failed", error=error, lang=lang)})
            reply["fence"] = fence
            ipc.send(protocol, reply)
    finally:
        host.close()


if __name__ == "__main__":
    main()
