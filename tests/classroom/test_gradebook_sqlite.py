"""Does sqlite3 read the gradebook's scores exactly as nbgrader's Gradebook does?

A gradebook is filled through nbgrader's own API with drawn notebooks, grade and task
cells, and grades (autograder scores, manual ones, extra credit, none at all); every
student's scores, read both ways, must be equal. Where sqlite3 cannot stand in (no file
yet, another database, no such assignment, a course nbgrader would first add) it says so.
"""
from __future__ import annotations

import random
import string

import pytest

from gradtutor.classroom.coursedir import gradebook_sqlite
from gradtutor.classroom.grading import gradebook

pytestmark = pytest.mark.unit


def _name(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 8)))


def _maybe(rng: random.Random, low: float, high: float) -> float | None:
    return None if rng.random() < 0.3 else round(rng.uniform(low, high), rng.choice([0, 1, 3]))


@pytest.fixture
def filled(tmp_path):
    """A gradebook filled through nbgrader's API: (db_url, course_id, assignment, students, one who submitted nothing)."""
    from nbgrader.api import Gradebook

    rng = random.Random(random.randrange(2**32))
    db_url, course_id, assignment = f"sqlite:///{tmp_path / 'gradebook.db'}", _name(rng), _name(rng)
    students = sorted({_name(rng) for _ in range(rng.randint(2, 6))})
    absent = "absent" + _name(rng)
    with Gradebook(db_url, course_id) as gb:
        gb.add_assignment(assignment)
        gb.add_assignment(assignment + "_other")  # another lesson's: its grades are not these
        cells = []
        for notebook in {_name(rng) for _ in range(rng.randint(1, 3))}:
            gb.add_notebook(notebook, assignment)
            for number in range(rng.randint(0, 4)):
                cell = f"check_{_name(rng)}{number}"
                if rng.random() < 0.75:
                    gb.add_grade_cell(cell, notebook, assignment, max_score=rng.choice([0.5, 1, 2, 3.5]),
                                      cell_type=rng.choice(["code", "markdown"]))
                else:
                    gb.add_task_cell(cell, notebook, assignment, max_score=rng.choice([1, 2]), cell_type="markdown")
                cells.append((cell, notebook))
        for student in [*students, absent]:
            gb.add_student(student)
        for student in students:
            gb.add_submission(assignment, student)
            for cell, notebook in cells:
                grade = gb.find_grade(cell, notebook, assignment, student)
                grade.auto_score, grade.manual_score = _maybe(rng, 0, 3), _maybe(rng, 0, 3) if rng.random() < 0.4 else None
                grade.extra_credit = _maybe(rng, 0, 1) if rng.random() < 0.3 else None
        gb.db.commit()
    return db_url, course_id, assignment, students, absent


def test_the_scores_read_with_sqlite3_are_the_gradebooks(filled):
    from nbgrader.api import Gradebook

    db_url, course_id, assignment, students, absent = filled
    everyone = [*students, absent]

    rows = gradebook_sqlite.submission_rows(db_url, course_id, assignment, everyone)

    assert rows is not None and rows[absent] == []
    with Gradebook(db_url, course_id) as gb:
        for student in everyone:
            by_nbgrader = gradebook.scores(gb, assignment, student, {}, {}, None)
            assert gradebook.notebook_results(student, rows[student], {}, {}, None) == by_nbgrader
            assert [nb.notebook for nb in by_nbgrader] == sorted(nb.notebook for nb in by_nbgrader)


def test_it_gives_way_to_nbgrader_where_it_cannot_read_alike(filled, tmp_path):
    db_url, course_id, assignment, students, _ = filled
    path = db_url[len("sqlite:///"):]

    assert gradebook_sqlite.has_assignment(db_url, course_id, assignment)
    for url, course, lesson in [(f"sqlite:///{tmp_path / 'none.db'}", course_id, assignment),  # nbgrader would make it
                                ("postgresql://host/gradebook", course_id, assignment),
                                (f"sqlite:///{path}?timeout=30", course_id, assignment),
                                (db_url, course_id + "x", assignment),  # nbgrader's Gradebook would add this course
                                (db_url, course_id, assignment + "x")]:
        assert gradebook_sqlite.submission_rows(url, course, lesson, students) is None
        assert not gradebook_sqlite.has_assignment(url, course, lesson)
    assert not (tmp_path / "none.db").exists()  # read-only: nothing made


def test_graded_before_reads_a_gradebook_sqlite3_cannot_with_nbgrader(filled, tmp_path, monkeypatch):
    """The fallback gives the same results: here sqlite3 is made to decline every gradebook."""
    from gradtutor.classroom.grading.results import Course

    db_url, course_id, assignment, students, _ = filled
    info = Course(tmp_path, db_url, course_id, tmp_path, {s: [] for s in students}, frozenset(students))
    fast = gradebook.graded_before(info, assignment, students)
    monkeypatch.setattr(gradebook_sqlite, "submission_rows", lambda *args: None)

    assert gradebook.graded_before(info, assignment, students) == fast
    assert set(fast) == set(students) and all(r.skipped and not r.graded for r in fast.values())
