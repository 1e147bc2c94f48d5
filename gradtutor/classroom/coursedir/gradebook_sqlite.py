"""The gradebook's scores read with Python's sqlite3, never written.

nbgrader's Gradebook loads SQLAlchemy and nbgrader's models, over a second of CPU, which a
re-run with nothing new to grade would spend only to read back scores. For a SQLite
gradebook that holds the course and the assignment, the same numbers are read here with
the SQL nbgrader's models compute them with (nbgrader/api.py: Grade.score, Grade.max_score,
SubmittedNotebook.score, Notebook.max_score). Anything else (another database, no file yet,
a schema these queries do not fit, a course nbgrader would first add) answers None, and
nbgrader's Gradebook reads it.
"""
from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

# A grade's points: the manual score if any, else the autograder's, plus any extra credit (Grade.score)
GRADE_SCORE = """CASE WHEN g.manual_score IS NOT NULL THEN g.manual_score + COALESCE(g.extra_credit, 0.0)
                      WHEN g.auto_score IS NOT NULL THEN g.auto_score + COALESCE(g.extra_credit, 0.0)
                      ELSE 0.0 END"""
# a submitted notebook's score and maximum (SubmittedNotebook.score, Notebook.max_score)
NOTEBOOKS = f"""
SELECT sn.id, n.name,
       (SELECT COALESCE(SUM({GRADE_SCORE}), 0.0) FROM grade g WHERE g.notebook_id = sn.id),
       (SELECT COALESCE(SUM(gc.max_score), 0.0) FROM base_cell c JOIN grade_cells gc ON gc.id = c.id
         WHERE c.notebook_id = n.id)
       + (SELECT COALESCE(SUM(tc.max_score), 0.0) FROM base_cell c JOIN task_cells tc ON tc.id = c.id
         WHERE c.notebook_id = n.id)
FROM submitted_assignment sa
JOIN assignment a ON a.id = sa.assignment_id
JOIN student s ON s.id = sa.student_id
JOIN submitted_notebook sn ON sn.assignment_id = sa.id
JOIN notebook n ON n.id = sn.notebook_id
WHERE a.name = ? AND s.id = ?"""
# each grade of a submitted notebook: its cell's name, points and maximum (Grade.score, Grade.max_score)
GRADES = f"""
SELECT c.name, {GRADE_SCORE},
       COALESCE((SELECT COALESCE(gc.max_score, 0.0) FROM grade_cells gc WHERE gc.id = g.cell_id),
                (SELECT COALESCE(tc.max_score, 0.0) FROM task_cells tc WHERE tc.id = g.cell_id), 0.0)
FROM grade g JOIN base_cell c ON c.id = g.cell_id
WHERE g.notebook_id = ?"""

# (notebook name, score, max score, [(grade cell name, score, max score)]) for each notebook of a submission
Rows = list[tuple[str, float, float, list[tuple[str, float, float]]]]


def submission_rows(db_url: str, course_id: str, assignment: str, students: list[str]) -> dict[str, Rows] | None:
    """student -> their submission's notebooks and grades ([] when the gradebook has no submission of theirs)."""
    try:
        with closing(_connect(db_url)) as db:
            if not _holds(db, course_id, assignment):
                return None
            return {student: [(name, score, max_score, db.execute(GRADES, (notebook,)).fetchall())
                              for notebook, name, score, max_score in db.execute(NOTEBOOKS, (assignment, student))]
                    for student in students}
    except (sqlite3.Error, NotSqlite):
        return None


def has_assignment(db_url: str, course_id: str, assignment: str) -> bool:
    """The gradebook holds the course and the assignment (False also when it cannot be read here)."""
    try:
        with closing(_connect(db_url)) as db:
            return _holds(db, course_id, assignment)
    except (sqlite3.Error, NotSqlite):
        return False


class NotSqlite(Exception):
    """A gradebook URL this module does not read (nbgrader's Gradebook does)."""


def _connect(db_url: str) -> sqlite3.Connection:
    """A read-only connection to the SQLite file of an absolute `sqlite:///` URL; it must exist."""
    prefix = "sqlite:///"
    path = db_url[len(prefix):] if db_url.startswith(prefix) else ""
    if not os.path.isabs(path) or "?" in path or not os.path.isfile(path):
        raise NotSqlite(db_url)  # relative (to nbgrader's working directory), with options, or still to be made
    return sqlite3.connect(Path(path).as_uri() + "?mode=ro", uri=True)


def _holds(db: sqlite3.Connection, course_id: str, assignment: str) -> bool:
    """The assignment is there, and the course too (nbgrader's Gradebook adds a missing course: it writes)."""
    course = not course_id or db.execute("SELECT 1 FROM course WHERE id = ?", (course_id,)).fetchone() is not None
    return course and db.execute("SELECT 1 FROM assignment WHERE name = ?", (assignment,)).fetchone() is not None
