"""nbgrader, configured as its own commands would be when run from the course folder."""
from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

from gradtutor import defaults
from gradtutor.errors import ClassroomError
from gradtutor.classroom.grading.results import Course
from gradtutor.messages import say


def assignment_name(lesson: str) -> str:
    """The nbgrader assignment of a gradtutor lesson: its id (lesson3 for `3` or `softmax`)."""
    from gradtutor.course import manifest as course

    return course.load().lesson(lesson).id  # UnknownLesson lists the valid ones


@contextmanager
def inside(folder: Path):
    """nbgrader reads nbgrader_config.py from the working directory, as when run from the course folder."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def nbgrader_api(kernels_over_ipc: bool = False):
    """NbGraderAPI configured exactly like an nbgrader command run in the current directory.

    `kernels_over_ipc`: talk to the kernels over Unix sockets instead of TCP ports
    (unless the course configures the transport). jupyter_client picks a free port
    and the kernel binds it a moment later; with several kernels starting at once
    on a busy machine another process can take the port in between, and the kernel
    dies while nbgrader blocks for ever sending to it. A socket path of this
    process's own cannot be taken. The transport does not change any score.
    """
    import logging

    _without_iri_checks()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.apps.baseapp import NbGrader

    app = NbGrader()
    app.initialize([])
    if kernels_over_ipc and "transport" not in app.config.KernelManager:
        app.config.KernelManager.transport = "ipc"
        # absolute, and one folder per worker: the kernel (running in the notebook's
        # folder) and nbgrader (in the course folder) must find the same socket files,
        # and a sandboxed kernel may create them there (kernel_sandbox)
        folder = kernel_socket_dir(os.getpid())
        os.makedirs(folder, mode=0o700, exist_ok=True)
        app.config.KernelManager.ip = os.path.join(folder, "kernel")
    api = NbGraderAPI(config=app.config)
    api.log.setLevel(logging.INFO)
    return api


def _without_iri_checks() -> None:
    """Import nbgrader here without jsonschema's optional IRI format checks.

    nbgrader imports nbformat, which imports jsonschema; when rfc3987_syntax is installed
    (jupyter_events' format extra pulls it in), jsonschema imports it to check the "iri"
    formats, and importing it compiles 38 Lark grammars: ~1 s of CPU in each process that
    loads nbgrader (the grading command and every grading worker), on the way to the first
    submission. No schema nbgrader, nbformat or gradtutor validates is checked for formats,
    so nothing here ever used them. Only this process goes without: the kernels never
    import jsonschema, and nbgrader's own commands are left as they are.
    """
    import sys

    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # None there: `import rfc3987_syntax` raises ImportError


def kernel_socket_dir(pid: int) -> str:
    """Where the kernels of grading process `pid` put their Unix sockets (removed when it ends)."""
    return os.path.join(tempfile.gettempdir(), f"gradtutor-kernels-{pid}")


def read_course(course_dir: Path, assignment: str, students: list[str] | None) -> Course:
    with inside(course_dir):
        api = nbgrader_api()
        coursedir = api.coursedir
        root = Path(coursedir.root).resolve()
        pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
        regexp = coursedir.format_path(coursedir.submitted_directory, "(?P<student_id>[^/]+)", assignment, escape=True)
        found: dict[str, list[str]] = {}
        import glob

        for folder in sorted(glob.glob(pattern)):
            match = re.fullmatch(regexp, folder)
            if not match or not os.path.isdir(folder):
                continue
            notebooks = sorted(p.name for p in Path(folder).glob("*.ipynb"))
            if notebooks:
                found[match.group("student_id")] = notebooks
        source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment)).resolve()
        before = frozenset(s for s in found if os.path.exists(coursedir.format_path(coursedir.autograded_directory, s,
                                                                                   assignment)))
        info = Course(root, coursedir.db_url, coursedir.course_id, source, found, before)
    if not source.is_dir():
        raise ClassroomError(say("classroom.nbgrader.no_source", source=source, course=course_dir))
    if students:
        missing = [s for s in students if s not in found]
        if missing:
            folder = os.path.relpath(os.path.dirname(os.path.dirname(pattern)), course_dir)
            raise ClassroomError(say("classroom.nbgrader.no_submission_from", assignment=assignment,
                                     students=", ".join(missing), folder=folder))
        info.submissions = {s: found[s] for s in students}
    if not info.submissions:
        where = os.path.relpath(pattern, course_dir)
        raise ClassroomError(say("classroom.nbgrader.no_submissions", assignment=assignment, course=course_dir,
                                 pattern=where))
    return info


def ensure_assignment(info: Course, assignment: str, console) -> None:
    """nbgrader autograde needs the assignment in the gradebook; generate_assignment puts it there."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(info.db_url, info.course_id) as gb:
        try:
            gb.find_assignment(assignment)
            return
        except MissingEntry:
            pass
    console.print(say("classroom.nbgrader.generating", assignment=assignment))
    with inside(info.root):
        outcome = nbgrader_api().generate_assignment(assignment, force=True)
    if not outcome.get("success"):
        last = (outcome.get("error") or outcome.get("log") or "").strip().splitlines()[-1:]
        raise ClassroomError(say("classroom.nbgrader.generate_failed", assignment=assignment,
                                 error=last[0] if last else say("classroom.nbgrader.unknown_error")))


def course_copies(coursedir, assignment: str, notebook: str) -> list:
    """The course's own copies of a notebook, read with nbformat: its release and its source (each when readable)."""
    import nbformat

    copies = []
    for step in (coursedir.release_directory, coursedir.source_directory):
        path = Path(coursedir.format_path(step, ".", assignment)) / notebook
        try:
            copies.append(nbformat.read(path, as_version=4))
        except Exception:  # noqa: BLE001 - a copy that is missing or unreadable is none of the course's
            continue
    return copies


def busy_url(db_url: str) -> str:
    """Workers write one gradebook: let SQLite wait for another's write instead of failing."""
    if db_url.startswith("sqlite:") and "?" not in db_url:
        return f"{db_url}?timeout={defaults.SQLITE_BUSY_TIMEOUT}"
    return db_url
