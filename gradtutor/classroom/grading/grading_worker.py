"""One grading process: nbgrader's Autograde for one student per request, then the re-check."""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from gradtutor.course import conventions
from gradtutor.classroom.grading.gradebook import cell_outcomes, inspect_submission, plain, scores, why_not_graded
from gradtutor.classroom.grading.nbgrader_glue import busy_url, kernel_socket_dir, nbgrader_api
from gradtutor.classroom.grading.recheck import recheck
from gradtutor.classroom.kernels import warm_kernels
from gradtutor.classroom.grading.shared_judge import SharedJudge
from gradtutor.isolation import ipc
from gradtutor.messages import say
from gradtutor.protocol import GradingJob

KERNEL_START_FAILED = r"Error occurred while starting new kernel client|Kernel died before replying to kernel_info"


def serve() -> None:
    """A grading worker: one job per stdin line, one JSON result per job on the protocol pipe."""
    course_dir, log = sys.argv[1], sys.argv[2]
    protocol = os.dup(1)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)  # nbgrader's logs and the kernels' start-up noise go to the log, never to the protocol
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(course_dir)
    os.environ["NBGRADER_EXECUTION"] = "autograde"  # what nbgrader sets around each run; constant here
    forker_dir = tempfile.mkdtemp(prefix="gradtutor-forker-")
    forker_path = os.path.join(forker_dir, "forker.sock")
    forker = warm_kernels.start_forker(forker_path, log)  # imports TensorFlow while nbgrader loads
    judge = SharedJudge(course_dir)  # its checker imports TensorFlow while nbgrader loads; it reads the secret
    os.environ["GRADTUTOR_JUDGE"] = judge.path  # the kernels nbgrader starts inherit it
    try:
        api = nbgrader_api(kernels_over_ipc=True)
        api.coursedir.db_url = busy_url(api.coursedir.db_url)
        sockets = kernel_socket_dir(os.getpid())
        if str(api.config.KernelManager.get("ip", "")).startswith(sockets):  # our Unix sockets, not the course's TCP
            from gradtutor.classroom.grading.sandboxed_execute import sandbox_kernels

            sandbox_kernels(api.config, api.coursedir.root, forker_path)  # Autograde runs SandboxedExecute instead of Execute
    except BaseException as exc:  # noqa: BLE001
        ipc.send(protocol, {"ready": False, "error": f"{exc.__class__.__name__}: {exc}"})
        return
    ipc.send(protocol, {"ready": True})
    jobs = ipc.MessageReader(sys.stdin)
    while not jobs.eof:
        job: GradingJob | None = jobs.read_message()
        if job is None:
            continue  # a blank line, or the end of the stream
        started = time.monotonic()
        try:
            result = grade_student(api, job["assignment"], job["student"], job["force"])
            judge.hang_up()
        except Exception as exc:  # noqa: BLE001 - report it; the parent scores the submission 0
            import traceback

            traceback.print_exc()
            result = {"student": job["student"], "graded": False,
                      "problem": say("classroom.problem.worker_error", error=f"{exc.__class__.__name__}: {exc}")}
        result["seconds"] = time.monotonic() - started
        ipc.send(protocol, result)
    judge.close()
    forker.kill()
    forker.wait()
    shutil.rmtree(forker_dir, ignore_errors=True)
    shutil.rmtree(kernel_socket_dir(os.getpid()), ignore_errors=True)


def grade_student(api, assignment: str, student: str, force: bool) -> dict:
    from nbgrader.api import Gradebook

    coursedir = api.coursedir
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, assignment))
    autograded = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))
    if autograded.exists() and not force:
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            notebooks = scores(gb, assignment, student, {}, {}, None)
        return {"student": student, "graded": False, "skipped": True, "notebooks": plain(notebooks)}

    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        read_problems, tampering = inspect_submission(gb, assignment, submitted)

    for attempt in (1, 2):
        print(f"===== autograde {assignment} {student} (attempt {attempt})", flush=True)
        outcome = api.autograde(assignment, student, force=True, create=True)
        log = outcome.get("log", "") + "\n" + outcome.get("error", "")
        print(log, flush=True)
        # A kernel that fails to start is the machine's fault, never the submission's: try once more.
        if outcome.get("success") or not re.search(KERNEL_START_FAILED, log):
            break
    problem = None if outcome.get("success") else why_not_graded(log, read_problems)

    bypassed = recheck(api, assignment, student, autograded) if outcome.get("success") else {}
    for name, cells_lost in bypassed.items():
        exercises = say("classroom.separator").join(conventions.exercise_of(g) or g for g in cells_lost)
        tampering.setdefault(name, []).append(say("classroom.problem.bypassed", exercises=exercises))
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        for notebook in gb.find_assignment(assignment).notebooks:
            if not (submitted / f"{notebook.name}.ipynb").exists():
                tampering.setdefault(notebook.name, []).append(say("classroom.problem.no_such_notebook"))
        cells = cell_outcomes(autograded) if outcome.get("success") else {}
        for name, cells_lost in bypassed.items():
            for grade_id, why in cells_lost.items():
                cells.setdefault(name, {})[grade_id] = ("fail", say("classroom.problem.fails_outside", why=why))
        notebooks = scores(gb, assignment, student, cells, tampering, problem)  # read problems are in `problem`
    return {"student": student, "graded": bool(outcome.get("success")), "problem": problem,
            "notebooks": plain(notebooks)}
