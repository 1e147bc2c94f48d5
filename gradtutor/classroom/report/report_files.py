"""Writing the class report into a folder: CSV for spreadsheets and LMSs, HTML for people.

DIR/index.html      the class table, the shared answers and shared mistakes, every student's points
DIR/summary.csv     one row per exercise and diagnosis (cause id, count, students)
DIR/grades.csv      student_id, each exercise's points, total (the gradebook's) — for an LMS import
DIR/similar.csv     the shared answers and mistakes; the solution and common forms as counts
DIR/causes.csv      per student, each cause and the lesson that teaches it
DIR/students/ID.html  each student's feedback
The folder is checked before grading starts, so a typo does not cost a whole grading run.
"""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

from gradtutor.classroom.report import report_html
from gradtutor.classroom.report.class_report import ClassReport, flag_rows, grade_rows, summary_rows
from gradtutor.classroom.report.report_causes import cause_rows
from gradtutor.errors import ClassroomError
from gradtutor.messages import say


def prepare(folder: Path) -> Path:
    """Make the report folder (and students/) or say in one line why it cannot be written."""
    folder = Path(folder).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ClassroomError(say("classroom.report.is_a_file", folder=folder))
    try:
        (folder / "students").mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass  # a folder that exists may still refuse new files
    except OSError as exc:
        raise ClassroomError(say("classroom.report.cannot_write", folder=folder,
                                 error=exc.strerror or exc.__class__.__name__)) from None
    return folder.resolve()


def write(report: ClassReport, folder: Path) -> list[Path]:
    """Every file of the report; returns the paths written."""
    folder = prepare(folder)
    written = [_csv(folder / "summary.csv", summary_rows(report)), _csv(folder / "grades.csv", grade_rows(report)),
               _csv(folder / "similar.csv", flag_rows(report)), _csv(folder / "causes.csv", cause_rows(report)),
               _text(folder / "index.html", report_html.class_page(report))]
    for student in report.students:
        written.append(_text(folder / "students" / report_html.student_file(student.student),
                             report_html.student_page(report.assignment, student)))
    return written


def _csv(path: Path, rows: list[list[str]]) -> Path:
    with _replacing(path) as handle:  # UTF-8 without a byte-order mark: the first header reads "student_id"
        csv.writer(handle).writerows(rows)
    return path


def _text(path: Path, text: str) -> Path:
    with _replacing(path) as handle:
        handle.write(text)
    return path


class _replacing:
    """Write beside the file and rename over it: a reader never sees half a report."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        fd, self.temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".", suffix=".tmp")
        self.handle = os.fdopen(fd, "w", encoding="utf-8", newline="")
        return self.handle

    def __exit__(self, kind, value, traceback):
        self.handle.close()
        if kind is None:
            os.replace(self.temporary, self.path)
        else:
            os.unlink(self.temporary)
