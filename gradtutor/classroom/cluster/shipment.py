"""What travels between the instructor's process and a Dask worker: the course kit, a submission, its grades.

Nothing assumes a shared filesystem. The instructor's process packs the course once (its
nbgrader_config.py, the lesson's source folder, and a copy of the gradebook with no
students in it) and each student's submitted folder; the worker autogrades in a course
folder of its own and sends back the autograded folder and what nbgrader wrote in its
gradebook. Only the instructor's process writes the real gradebook and autograded/
(`apply_grade`), with the same values nbgrader wrote on the worker, so the gradebook is
the one `--jobs N` on one machine leaves.
"""
from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sqlite3
import tempfile
import warnings
from datetime import datetime
from pathlib import Path

from gradtutor.classroom.grading.nbgrader_glue import busy_url
from gradtutor.classroom.grading.results import Course
from gradtutor.errors import ClassroomError
from gradtutor.messages import language, say
from gradtutor.payloads import CourseKit, GradebookRows, RemoteGrade


def pack(folder: Path) -> dict[str, str]:
    """Every file under `folder` (relative path -> base64 bytes); {} when there is no folder."""
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): base64.b64encode(p.read_bytes()).decode()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def unpack(files: dict[str, str], folder: Path) -> None:
    """Write packed files under `folder`; a path that would leave it is refused."""
    root = folder.resolve()
    for name, data in files.items():
        target = (folder / name).resolve()
        if root not in target.parents:
            raise ValueError(say("classroom.dask.outside_folder", name=repr(name)))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(data))


def make_kit(info: Course, assignment: str, timeout: float) -> CourseKit:
    """The course as a worker needs it to autograde `assignment`."""
    if not info.db_url.startswith("sqlite:///"):
        raise ClassroomError(say("classroom.dask.needs_sqlite", url=info.db_url))
    config = info.root / "nbgrader_config.py"
    kit = {"assignment": assignment, "course_id": info.course_id, "timeout": timeout,
           "config": base64.b64encode(config.read_bytes() if config.is_file() else b"").decode(),
           "gradebook": base64.b64encode(_gradebook_without_students(info)).decode(),
           "source": pack(info.source), "lang": language()}  # the worker words its problems in the instructor's
    kit["digest"] = hashlib.sha256(json.dumps(kit, sort_keys=True).encode()).hexdigest()
    return kit


def _gradebook_without_students(info: Course) -> bytes:
    """A copy of the gradebook with its assignments and no students: no one's grades leave this machine."""
    from nbgrader.api import Gradebook

    folder = Path(tempfile.mkdtemp(prefix="gradtutor-kit-"))
    try:
        copy = folder / "gradebook.db"
        source = sqlite3.connect(info.db_url[len("sqlite:///"):].split("?")[0])
        target = sqlite3.connect(copy)
        with target:
            source.backup(target)  # consistent even while another process writes
        source.close()
        target.close()
        with Gradebook(f"sqlite:///{copy}", info.course_id) as gb, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SQLAlchemy's notes on nbgrader's cascades: not the instructor's concern
            for student in list(gb.students):
                gb.remove_student(student.id)
        vacuum = sqlite3.connect(copy)
        vacuum.execute("VACUUM")  # removed rows leave no trace in the file
        vacuum.close()
        return copy.read_bytes()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def apply_grade(info: Course, assignment: str, student: str, autograded: Path, grade: RemoteGrade) -> None:
    """Write what nbgrader wrote on the worker into this course's gradebook and autograded/ folder.

    nbgrader's SaveAutoGrades marks a grade for manual grading when a grader already gave
    it a manual score; the worker's gradebook has none, so that rule is applied here.
    """
    from nbgrader.api import Gradebook

    with Gradebook(busy_url(info.db_url), info.course_id) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's notes on nbgrader's own queries, as in the kit
        gb.update_or_create_student(student)
        stamp = grade.get("timestamp")
        if stamp:
            gb.update_or_create_submission(assignment, student, timestamp=datetime.fromisoformat(stamp))
        else:
            gb.update_or_create_submission(assignment, student)
        for notebook, rows in grade.get("notebooks", {}).items():
            _apply_rows(gb, assignment, student, notebook, rows)
        gb.db.commit()
    shutil.rmtree(autograded, ignore_errors=True)
    unpack(grade.get("files", {}), autograded)


def _apply_rows(gb, assignment: str, student: str, notebook: str, rows: GradebookRows) -> None:
    submitted = gb.find_submission_notebook(notebook, assignment, student)
    submitted.late_submission_penalty = rows["late_penalty"]
    for grade_id, (auto_score, needs_manual) in rows["grades"].items():
        grade = gb.find_grade(grade_id, notebook, assignment, student)
        grade.auto_score = auto_score
        grade.needs_manual_grade = bool(needs_manual) or grade.manual_score is not None
    for grade_id, auto_comment in rows["comments"].items():
        gb.find_comment(grade_id, notebook, assignment, student).auto_comment = auto_comment


def read_rows(db_url: str, course_id: str, assignment: str, student: str) -> tuple[str | None, dict]:
    """(timestamp, notebook -> GradebookRows) of one submission in a gradebook; (None, {}) when it has none."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url, course_id) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return None, {}
        stamp = submission.timestamp.isoformat() if submission.timestamp else None
        notebooks = {nb.name: GradebookRows(late_penalty=nb.late_submission_penalty,
                                            grades={g.name: [g.auto_score, g.needs_manual_grade] for g in nb.grades},
                                            comments={c.name: c.auto_comment for c in nb.comments})
                     for nb in submission.notebooks}
    return stamp, notebooks
