"""The gradebook as one table: every student's record and their score on each assignment.

What `gradtutor grade --export` writes for an LMS (gradtutor.classroom.lms.lms_export) is read
from nbgrader's gradebook, so it holds every lesson graded so far, not only the one
just graded, and the points are nbgrader's (manual grades included).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class StudentRecord:
    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""


@dataclasses.dataclass(frozen=True)
class AssignmentColumn:
    name: str  # nbgrader's assignment name: the lesson id
    max_score: float


@dataclasses.dataclass(frozen=True)
class GradeTable:
    students: tuple[StudentRecord, ...]
    assignments: tuple[AssignmentColumn, ...]
    scores: dict[tuple[str, str], float]  # (student, assignment) -> points; absent: nothing submitted

    def score(self, student: str, assignment: str) -> float | None:
        return self.scores.get((student, assignment))


def course_database(course_dir: Path) -> tuple[str, str]:
    """(db_url, course_id) as nbgrader's commands run in `course_dir` see them."""
    from gradtutor.classroom.grading.nbgrader_glue import inside, nbgrader_api

    with inside(Path(course_dir).expanduser().resolve()):
        coursedir = nbgrader_api().coursedir
        return coursedir.db_url, coursedir.course_id


def read_table(course_dir: Path) -> GradeTable:
    """Every student of the gradebook and every assignment someone submitted, in the course's lesson order."""
    from nbgrader.api import Gradebook

    from gradtutor.course import manifest as course

    order = {lesson.id: lesson.number for lesson in course.load().lessons}
    db_url, course_id = course_database(course_dir)
    with Gradebook(db_url, course_id) as gb:
        students = tuple(StudentRecord(s.id, s.first_name or "", s.last_name or "", s.email or "",
                                       s.lms_user_id or "") for s in gb.students)
        scores: dict[tuple[str, str], float] = {}
        columns = []
        for assignment in sorted(gb.assignments, key=lambda a: (order.get(a.name, len(order) + 1), a.name)):
            submissions = assignment.submissions
            if not submissions:
                continue
            columns.append(AssignmentColumn(assignment.name, float(assignment.max_score or 0)))
            for submission in submissions:
                scores[(submission.student.id, assignment.name)] = float(submission.score or 0)
    return GradeTable(tuple(sorted(students, key=lambda s: (s.last_name.lower(), s.first_name.lower(), s.id))),
                      tuple(columns), scores)
