"""Do the lessons grade right in a plain nbgrader course, one made without `gradtutor classroom init`?

An instructor copies the lessons' source notebooks into an nbgrader course of their own, whose
nbgrader_config.py sets only its course_id, so it has no hidden-input secret. `nbgrader
generate_assignment` then `nbgrader autograde`, exactly as nbgrader's documentation has it: the
hidden-test cells grade on the package's public hidden inputs and say so in their output (never a
silent 0 for a correct answer), the source notebook earns every point and the untouched release none.
"""
from __future__ import annotations

import html
import json
import shutil

import nbformat
import pytest

from gradtutor import conventions, course, messages
from tests.support.classroom import nbgrader, read_gradebook

pytestmark = pytest.mark.nbgrader

# Every lesson would cost minutes of the suite's time budget (each notebook runs its demonstrations):
# lesson5 is the one whose hidden inputs once failed correct answers; the course's other lessons use
# the same check cells (tests/test_conventions.py) and the same judge.
LESSONS = ["lesson5"]


def _plain_course(folder, lessons):
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text("c = get_config()  # noqa\nc.CourseDirectory.course_id = 'plain'\n")
    for lesson_id in lessons:
        lesson = course.load().lesson(lesson_id)
        (folder / "source" / lesson_id).mkdir(parents=True)
        shutil.copyfile(lesson.source_notebook(), folder / "source" / lesson_id / lesson.notebook)
        made = nbgrader("generate_assignment", lesson_id, cwd=folder)
        assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
        release = folder / "release" / lesson_id / lesson.notebook
        for student, notebook in (("author", lesson.source_notebook()), ("untouched", release)):
            target = folder / "submitted" / student / lesson_id / lesson.notebook
            target.parent.mkdir(parents=True)
            shutil.copyfile(notebook, target)
    return folder


@pytest.mark.parametrize("lesson_id", LESSONS)
def test_does_a_plain_nbgrader_course_grade_the_source_full_and_the_release_zero(lesson_id, tmp_path):
    lesson = course.load().lesson(lesson_id)
    folder = _plain_course(tmp_path / "plain", [lesson_id])
    graded = nbgrader("autograde", lesson_id, cwd=folder)
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    book = read_gradebook(folder, lesson_id)
    total = float(sum(e.points for e in lesson.exercises))
    assert book["author"]["score"] == book["author"]["max_score"] == total, book["author"]
    assert book["untouched"]["score"] == 0, book["untouched"]
    autograded = folder / "autograded" / "author" / lesson_id / lesson.notebook
    cells = conventions.cells_by_grade_id(nbformat.read(autograded, as_version=4))
    for exercise in lesson.exercises:
        shown = html.unescape(json.dumps(cells[conventions.check_id(exercise.id)].outputs, ensure_ascii=False))
        assert json.dumps(messages.say("check.hidden.public", "en"))[1:-1] in shown, shown[:2000]
