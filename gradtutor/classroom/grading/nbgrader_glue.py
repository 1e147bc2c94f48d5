"""nbgrader, configured as its own commands would be when run from the course folder."""
from __future__ import annotations

import os
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

    without_iri_checks()
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


def without_iri_checks() -> None:
    """Import nbgrader or nbformat here without jsonschema's optional IRI format checks.

    nbgrader imports nbformat, which imports jsonschema; when rfc3987_syntax is installed
    (jupyter_events' format extra pulls it in), jsonschema imports it to check the "iri"
    formats, and importing it compiles 38 Lark grammars: ~1 s of CPU in each process that
    loads nbgrader (the grading command and every grading worker), on the way to the first
    submission, or nbformat alone (the class report). No schema nbgrader, nbformat or gradtutor
    validates is checked for formats, so nothing here ever used them. Only this process goes
    without: the kernels never import jsonschema, and nbgrader's own commands are left as they are.
    """
    import sys

    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # None there: `import rfc3987_syntax` raises ImportError


def kernel_socket_dir(pid: int) -> str:
    """Where the kernels of grading process `pid` put their Unix sockets (removed when it ends)."""
    return os.path.join(tempfile.gettempdir(), f"gradtutor-kernels-{pid}")


def ensure_assignment(info: Course, assignment: str, console) -> None:
    """nbgrader autograde needs the assignment in the gradebook; generate_assignment puts it there."""
    from gradtutor.classroom.coursedir import gradebook_sqlite

    if gradebook_sqlite.has_assignment(info.db_url, info.course_id, assignment):
        return  # seen without loading nbgrader's Gradebook (SQLAlchemy): a re-run's usual case
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
