"""The repository is an nbgrader course: `nbgrader generate_assignment lessonN`, run at its root with
its own nbgrader_config.py, turns solutions/lessonN/ into exactly the committed lessons/lessonN/."""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from gradtutor import course
from tests.support.classroom import nbgrader

REPO = Path(__file__).resolve().parent.parent


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
        by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in source.cells}
        released = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in release.cells}
        for exercise in lesson.exercises:
            answer, test = by_id.get(exercise.id), by_id.get(f"check_{exercise.id}")
            assert answer is not None and answer.metadata.nbgrader.get("solution"), f"{lesson.id}: no answer cell {exercise.id}"
            assert test is not None, f"{lesson.id}: no test cell check_{exercise.id}"
            meta = test.metadata.nbgrader
            assert meta.get("grade") and meta.get("locked") and not meta.get("solution"), (lesson.id, exercise.id, meta)
            assert meta.get("points") == exercise.points, f"{lesson.id} check_{exercise.id}: points {meta.get('points')} != manifest {exercise.points}"
            visible = f'check("{lesson.id}", "{exercise.id}", {exercise.function}, seeds="visible")'
            hidden = f'check("{lesson.id}", "{exercise.id}", {exercise.function}, seeds="hidden")'
            assert visible in test.source
            start, end = test.source.index("### BEGIN HIDDEN TESTS"), test.source.index("### END HIDDEN TESTS")
            assert start < test.source.index(hidden) < end
            learner_copy = released[f"check_{exercise.id}"].source
            assert visible in learner_copy and "seeds=\"hidden\"" not in learner_copy
        assert len([c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]) == len(lesson.exercises)
