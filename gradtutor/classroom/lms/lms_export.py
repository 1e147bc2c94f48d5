"""`gradtutor grade --export canvas|moodle|csv FILE`: the gradebook in an LMS's gradebook-import format.

canvas  Canvas's gradebook CSV, as Canvas itself exports it and reads it back: the columns
        Student, ID, SIS User ID, SIS Login ID, Section, then one per assignment; a second
        row "Points Possible" with each assignment's points. Canvas matches a row to a
        student by ID, the Canvas user id nbgrader keeps as `lms_user_id`; "Student" is
        "Last, First" as Canvas writes it (Canvas never matches on it). An assignment
        column named like an existing Canvas assignment updates it; otherwise the import
        offers to create it.
moodle  Moodle's grade import ("Import > CSV file"), laid out as Moodle's own plain-text
        export: First name, Surname, ID number, Institution, Department, Email address,
        then one column per grade item. Moodle maps a column to its users: "Email address"
        to "Email address", each assignment column to a grade item (or a new one).
csv     nbgrader's student fields and, per assignment, points and points possible.

UTF-8 without a byte-order mark (both import forms read UTF-8 by default), comma-separated,
every row as long as the header (Moodle refuses a file whose rows differ). An assignment a
student has no submission for is left empty, never written as a 0 nbgrader did not give.
A student the LMS could not match (no lms_user_id for Canvas, no email for Moodle) stops
the export with their names: a grade that is silently not imported is a grade lost. The grade
command asks the same of every student it is about to grade before it grades anyone
(gradtutor.classroom.lms.lms_commands.check_matchable).
"""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

from gradtutor.classroom.grading.grade_table import GradeTable, StudentRecord
from gradtutor.errors import ClassroomError, UsageError
from gradtutor.messages import say

FORMATS = ("canvas", "moodle", "csv")
# what each LMS matches a row to its student by; the plain CSV matches nothing
MATCHED_BY = {"canvas": "lms_user_id", "moodle": "email"}
CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS = "Points Possible"
MOODLE_HEAD = ["First name", "Surname", "ID number", "Institution", "Department", "Email address"]
CSV_HEAD = ["student_id", "first_name", "last_name", "email", "lms_user_id"]
# what a spreadsheet would run as a formula at the start of a cell: names only (ids and emails are matched)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def check_format(name: str) -> str:
    if name not in FORMATS:
        raise UsageError(say("classroom.lms.export.unknown_format", format=name, formats=", ".join(FORMATS)))
    return name


def prepare(path: Path) -> Path:
    """The export file's path, checked before grading: its folder exists and takes new files."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise ClassroomError(say("classroom.lms.export.is_a_folder", file=path))
    folder = path.parent if str(path.parent) else Path(".")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ClassroomError(say("classroom.lms.export.cannot_write", file=path,
                                 error=exc.strerror or exc.__class__.__name__)) from None
    return path.resolve()


def rows(table: GradeTable, fmt: str) -> list[list[str]]:
    """The file's rows, header first."""
    graded = [s for s in table.students if any(table.score(s.id, a.name) is not None for a in table.assignments)]
    if fmt == "canvas":
        require_matchable(graded, fmt)
        out = [CANVAS_HEAD + [a.name for a in table.assignments],
               [CANVAS_POINTS] + [""] * (len(CANVAS_HEAD) - 1) + [_points(a.max_score) for a in table.assignments]]
        out.extend([_safe(sortable_name(s)), s.lms_user_id, "", "", "", *_scores(table, s, _points)] for s in graded)
        return out
    if fmt == "moodle":
        require_matchable(graded, fmt)
        out = [MOODLE_HEAD + [a.name for a in table.assignments]]
        out.extend([_safe(s.first_name or s.id), _safe(s.last_name), "", "", "", s.email,
                    *_scores(table, s, lambda v: f"{v:.2f}")] for s in graded)
        return out
    head = list(CSV_HEAD)
    for a in table.assignments:
        head += [a.name, f"{a.name} max"]
    out = [head]
    for s in table.students:
        cells = [s.id, _safe(s.first_name), _safe(s.last_name), s.email, s.lms_user_id]
        for a in table.assignments:
            score = table.score(s.id, a.name)
            cells += ["" if score is None else _points(score), _points(a.max_score)]
        out.append(cells)
    return out


def write(table: GradeTable, fmt: str, path: Path) -> int:
    """Write the export (replacing the file whole, never half); returns how many students it holds."""
    found = rows(table, fmt)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(found)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(found) - (2 if fmt == "canvas" else 1)


def sortable_name(student: StudentRecord) -> str:
    """"Last, First" as Canvas lists its students; whichever part there is; else the nbgrader id."""
    if student.last_name and student.first_name:
        return f"{student.last_name}, {student.first_name}"
    return student.last_name or student.first_name or student.id


def _scores(table: GradeTable, student: StudentRecord, shown) -> list[str]:
    values = (table.score(student.id, a.name) for a in table.assignments)
    return ["" if value is None else shown(value) for value in values]


def require_matchable(students: list[StudentRecord], fmt: str, graded: bool = True) -> None:
    """Refuse, naming them, the students `fmt`'s LMS could not match to a row.

    `graded`: the grades are in the gradebook (the line says to export again), or grading has
    not started (it says to grade again once the roster has them).
    """
    field = MATCHED_BY[fmt]
    missing = [s.id for s in students if not getattr(s, field)]
    if missing:
        shown = ", ".join(missing[:10]) + (f" +{len(missing) - 10}" if len(missing) > 10 else "")
        kind = "missing" if graded else "unmatched"
        raise ClassroomError(say(f"classroom.lms.export.{kind}_{field}", format=fmt, count=len(missing),
                                 students=shown))


def _safe(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


def _points(value: float) -> str:
    return f"{value:g}"
