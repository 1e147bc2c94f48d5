"""The repository is an nbgrader course: `nbgrader generate_assignment lessonN`, run at its root with
its own nbgrader_config.py, turns solutions/lessonN/ into exactly the committed lessons/lessonN/."""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import nbgrader

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.nbgrader
def test_nbgrader_generate_assignment_at_the_root_makes_the_committed_lessons(tmp_path):
    # A copy of what nbgrader reads, so the run leaves no gradebook.db in the repository.
    shutil.copyfile(REPO / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    shutil.copytree(REPO / "solutions", tmp_path / "solutions")
    lessons = course.load().lessons
    assert lessons
    for lesson in lessons:
        done = nbgrader("generate_assignment", lesson.id, "--force", cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        made = tmp_path / "lessons" / lesson.id / lesson.notebook
        committed = REPO / "lessons" / lesson.id / lesson.notebook
        assert made.is_file(), f"nbgrader wrote no {made.relative_to(tmp_path)}: check nbgrader_config.py"
        assert committed.read_text() == made.read_text(), (
            f"{committed.relative_to(REPO)} differs from what `nbgrader generate_assignment {lesson.id}` makes "
            "from solutions/ — run `make lessons`")


@pytest.mark.unit
def test_every_exercise_has_a_locked_graded_test_cell_with_hidden_tests():
    for lesson in course.load().lessons:
        source = nbformat.read(lesson.source_notebook(), as_version=4)
        release = nbformat.read(lesson.release_notebook(), as_version=4)
        by_id, released = conventions.cells_by_grade_id(source), conventions.cells_by_grade_id(release)
        for exercise in lesson.exercises:
            check_id = conventions.check_id(exercise.id)
            answer, test = by_id.get(exercise.id), by_id.get(check_id)
            assert answer is not None and conventions.is_solution(answer), f"{lesson.id}: no answer cell {exercise.id}"
            assert test is not None, f"{lesson.id}: no test cell {check_id}"
            meta = conventions.metadata(test)
            assert meta.get("grade") and meta.get("locked") and not meta.get("solution"), (lesson.id, exercise.id, meta)
            assert meta.get("points") == exercise.points, f"{lesson.id} {check_id}: points {meta.get('points')} != manifest {exercise.points}"
            visible = f'check("{lesson.id}", "{exercise.id}", {exercise.function}, seeds="visible")'
            hidden = f'check("{lesson.id}", "{exercise.id}", {exercise.function}, seeds="hidden")'
            assert visible in test.source
            start, end = test.source.index(conventions.BEGIN_HIDDEN_TESTS), test.source.index(conventions.END_HIDDEN_TESTS)
            assert start < test.source.index(hidden) < end
            learner_copy = released[check_id].source
            assert visible in learner_copy and "seeds=\"hidden\"" not in learner_copy
        assert len(conventions.grade_cells(source)) == len(lesson.exercises)
