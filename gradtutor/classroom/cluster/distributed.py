"""`gradtutor grade --scheduler tcp://HOST:PORT`: each submission autograded on a Dask cluster.

The instructor runs `dask scheduler` on one machine and `dask worker tcp://HOST:PORT` on each
of the others (each with gradtutor[classroom] installed); nothing is shared but the network.
This process packs the course once (gradtutor.classroom.cluster.shipment), sends every student's
submitted folder as a task (gradtutor.classroom.cluster.dask_task), and, as each finishes
(`as_completed`), writes its grades into the gradebook and its autograded folder: this process
alone writes them, as with `--jobs N` on one machine.

A worker that dies mid-task loses nothing: the scheduler runs the task again on another
worker. A submission whose task has killed more workers than the scheduler's
`distributed.scheduler.allowed-failures` (3 unless the scheduler is configured otherwise)
is not tried again: it is scored 0 with that reason, as a submission stopped by --timeout is.
"""
from __future__ import annotations

import re
import uuid
from pathlib import Path

from gradtutor.classroom.grading.gradebook import scores
from gradtutor.classroom.grading.nbgrader_glue import inside, nbgrader_api
from gradtutor.classroom.grading.results import Course, SubmissionResult
from gradtutor.classroom.cluster.shipment import apply_grade, make_kit, pack
from gradtutor.errors import ClassroomError
from gradtutor.messages import say

WORKERS_TIMEOUT = 60  # seconds to wait for a first worker to join the scheduler
ADDRESS = re.compile(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:]+\]|[A-Za-z0-9._-]+):(\d{1,5})")


def check_address(address: str) -> str:
    """tcp://HOST:PORT (or tls://, or HOST:PORT); anything else is a usage error, said in one line."""
    match = ADDRESS.fullmatch(address.strip())
    if not match or not 0 < int(match.group(3)) < 65536:
        raise ClassroomError(say("classroom.dask.bad_address", address=repr(address)))
    return address.strip() if match.group(1) else f"tcp://{address.strip()}"


class Cluster:
    """Grades like gradtutor.classroom.grading.pool.Pool (same `size`, `grade`, `close`), on a Dask cluster."""

    def __init__(self, address: str, timeout: float):
        """Connect (within Dask's distributed.comm.timeouts.connect) and wait for a first worker."""
        address = check_address(address)
        try:
            import distributed
        except ImportError:
            raise ClassroomError(say("classroom.dask.needs_dask")) from None
        self.info: Course | None = None  # the course folder, read once the cluster answered
        self.timeout = timeout
        try:
            self.client = distributed.Client(address)  # as_completed finds it as the default
        except (OSError, TimeoutError) as exc:
            raise ClassroomError(say("classroom.dask.unreachable", address=address, error=_first_line(exc))) from None
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
        except (OSError, TimeoutError):
            self.close()
            raise ClassroomError(say("classroom.dask.no_workers", address=address, seconds=WORKERS_TIMEOUT)) from None
        workers = self.client.scheduler_info().get("workers", {})
        self.size = max(1, sum(w.get("nthreads", 1) for w in workers.values()))
        self.fences: dict[str, list[str]] = {}  # worker address -> network fence layers that held there

    def grade(self, assignment: str, students: list[str], force: bool):
        """Yield a SubmissionResult per student, as each finishes anywhere on the cluster."""
        from distributed import as_completed

        from gradtutor.classroom.cluster.dask_task import course_kit, grade_submission

        folders = self._folders(assignment, students)
        todo = []
        for student in students:
            if folders[student][1].exists() and not force:
                yield self._skipped(assignment, student)
            else:
                todo.append(student)
        if not todo:
            return
        run = uuid.uuid4().hex[:8]  # a task key is the student's, and new for each run
        # The kit is a task's result, not scattered data: a worker that dies holding the only copy
        # loses nothing, since the scheduler can run the task again (scattered data would be lost).
        kit = self.client.submit(course_kit, make_kit(self.info, assignment, self.timeout), pure=False,
                                 key=f"gradtutor-kit-{assignment}-{run}")
        futures = {self.client.submit(grade_submission, kit, student, pack(folders[student][0]), pure=False,
                                      key=f"gradtutor-{assignment}-{student}-{run}"): student for student in todo}
        for future in as_completed(futures):
            student = futures.pop(future)
            yield self._result(future, assignment, student, folders[student][1])

    def _result(self, future, assignment: str, student: str, autograded: Path) -> SubmissionResult:
        from distributed import KilledWorker

        try:
            grade = future.result()
        except KilledWorker:
            return SubmissionResult(student, graded=False, stopped=True, problem=say("classroom.dask.killed_workers"))
        except Exception as exc:  # noqa: BLE001 - one lost task never stops the batch
            return SubmissionResult(student, graded=False, stopped=True,
                                    problem=say("classroom.dask.lost", error=_first_line(exc)))
        finally:
            future.release()
        if grade.get("worker"):
            self.fences[grade["worker"]] = grade.get("fence", [])
        result = SubmissionResult.from_json(grade["result"])
        result.stopped = bool(grade["result"].get("stopped"))
        if not result.stopped:
            apply_grade(self.info, assignment, student, autograded, grade)
        return result

    def _folders(self, assignment: str, students: list[str]) -> dict[str, tuple[Path, Path]]:
        """student -> (submitted folder, autograded folder), as the course's nbgrader config lays them out."""
        with inside(self.info.root):
            coursedir = nbgrader_api().coursedir
            return {s: (Path(coursedir.format_path(coursedir.submitted_directory, s, assignment)).resolve(),
                        Path(coursedir.format_path(coursedir.autograded_directory, s, assignment)).resolve())
                    for s in students}

    def _skipped(self, assignment: str, student: str) -> SubmissionResult:
        from nbgrader.api import Gradebook

        with Gradebook(self.info.db_url, self.info.course_id) as gb:
            notebooks = scores(gb, assignment, student, {}, {}, None)
        return SubmissionResult(student, graded=False, skipped=True, notebooks=notebooks)

    def unfenced(self) -> list[str]:
        """The workers where learner code could reach the network (no fence layer held)."""
        return sorted(worker for worker, held in self.fences.items() if not held)

    def close(self) -> None:
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            client.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{exc.__class__.__name__}: {text[0]}" if text else exc.__class__.__name__
