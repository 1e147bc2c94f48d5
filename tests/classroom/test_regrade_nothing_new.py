"""A re-run of `gradtutor grade` with nothing new to grade starts nothing: no grading process, so no kernel,
no forker and no checker (each imports TensorFlow: the seconds such a re-run used to take).

The course folder is `classroom init`'s; "graded before" is what nbgrader leaves: an autograded copy of the
submission, and the assignment in the gradebook. The grading processes are stood in for by a recorder, so
the test sees whether, and for whom, any would have started.
"""
from __future__ import annotations

import random
import shutil
import string

import pytest

from gradtutor.classroom import commands
from gradtutor.classroom.grading import pool as pool_module
from gradtutor.classroom.grading.course_folder import init_course
from gradtutor.classroom.grading.results import SubmissionResult
from gradtutor.course import manifest as course

pytestmark = pytest.mark.unit


class Recorder:
    """Stands where gradtutor.classroom.grading.pool.Pool stands; grades nobody, says whom it was asked for."""

    made: list["Recorder"] = []

    def __init__(self, course_dir, logs, size, timeout):
        self.size, self.asked = size, []
        Recorder.made.append(self)

    def resize(self, size):
        self.size = size

    def grade(self, assignment, students, force):
        self.asked.extend(students)
        for student in students:
            yield SubmissionResult(student, graded=True)

    def close(self):
        pass


@pytest.fixture
def course_folder(tmp_path, monkeypatch):
    """A course with a lesson's class handed in; returns (folder, lesson id, students)."""
    from nbgrader.api import Gradebook

    from gradtutor.classroom.grading.grade_table import course_database

    rng = random.Random(random.randrange(2**32))
    folder = tmp_path / "course"
    init_course(folder)
    lesson = rng.choice([lesson.id for lesson in course.load().lessons if lesson.exercises])
    students = sorted({"".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(5)})
    for student in students:
        (folder / "submitted" / student / lesson).mkdir(parents=True)
        shutil.copy(folder / "source" / lesson / f"{lesson}.ipynb", folder / "submitted" / student / lesson)
    db_url, course_id = course_database(folder)
    with Gradebook(db_url, course_id) as gb:
        gb.add_assignment(lesson)  # as generate_assignment leaves it
    Recorder.made = []
    monkeypatch.setattr(pool_module, "Pool", Recorder)
    return folder, lesson, students


def graded_before(folder, lesson, students):
    for student in students:  # what nbgrader autograde leaves behind
        shutil.copytree(folder / "submitted" / student / lesson, folder / "autograded" / student / lesson)


def test_a_rerun_with_nothing_new_starts_no_grading_process(course_folder):
    folder, lesson, students = course_folder
    graded_before(folder, lesson, students)

    results = commands.grade(folder, lesson, jobs=2)

    assert Recorder.made == []  # no grading process: no kernel, no forker, no checker
    assert [r.student for r in results] == students and all(r.skipped and not r.graded for r in results)


def test_a_rerun_grades_only_what_is_new_and_force_grades_all(course_folder):
    folder, lesson, students = course_folder
    graded_before(folder, lesson, students[1:])

    results = commands.grade(folder, lesson, jobs=2)

    [started] = Recorder.made
    assert started.asked == students[:1] and started.size == 1  # one new submission: one process
    assert {r.student: r.skipped for r in results} == {s: s != students[0] for s in students}
    commands.grade(folder, lesson, jobs=2, force=True)
    assert Recorder.made[-1].asked == students and Recorder.made[-1].size == 2
