"""Do the lessons grade right in a plain nbgrader course, one made without `gradtutor classroom init`?

An instructor copies every lesson's source notebook into an nbgrader course of their own, whose
nbgrader_config.py sets only its course_id, so it has no hidden-input secret. `nbgrader
generate_assignment` then `nbgrader autograde`, exactly as nbgrader's documentation has it (the
real CLI, its SQLite gradebook): the hidden-test cells grade on the package's public hidden inputs
and say so in their output (never a silent 0 for a correct answer), the source notebook earns every
point and the untouched release none, on every lesson of the manifest, in every language (each language's
notebooks an assignment of their own: `lesson1` and `lesson1_zh_CN`). A learner's check() returns its
verdict and goes on; under nbgrader's execution it raises, and these scores are what that raise earns.

One course per language, holding every lesson, and one invocation of each command in it (an
assignment glob, as nbgrader takes one): each notebook runs its demonstrations once, and the
per-lesson tests only read what that one autograde wrote. Two courses rather than one because each
autograde is serial (a kernel at a time, ~10 minutes for both languages): as two xdist groups, the
two `make test` workers can grade one language each instead of one worker grading both.
"""
from __future__ import annotations

import functools
import html
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from gradtutor import messages
from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import nbgrader, read_gradebook
from tests.support.schedule import plain_nbgrader_group

pytestmark = pytest.mark.nbgrader

LESSONS = [lesson.id for lesson in course.load().lessons]
LANGUAGES = messages.LANGUAGES


def _assignment(lesson_id: str, lang: str) -> str:
    return lesson_id if lang == messages.DEFAULT else f"{lesson_id}_{lang}"
STUDENTS = ("author", "untouched")  # hands in the source notebook / the release as it was given out


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    """lang → its plain course, generated and autograded when a test first asks for it (once per language)."""
    @functools.cache
    def graded(lang: str) -> Path:
        return _grade(tmp_path_factory.mktemp(f"plain-{lang}"), lang)

    return graded


def _grade(folder: Path, lang: str) -> Path:
    """A plain course with every lesson in one language, generated and autograded with one nbgrader command each."""
    (folder / "nbgrader_config.py").write_text("c = get_config()  # noqa\nc.CourseDirectory.course_id = 'plain'\n")
    lessons = [course.load().lesson(lesson_id) for lesson_id in LESSONS]
    for lesson in lessons:
        (folder / "source" / _assignment(lesson.id, lang)).mkdir(parents=True)
        shutil.copyfile(lesson.source_notebook(lang), folder / "source" / _assignment(lesson.id, lang) /
                        lesson.source_notebook(lang).name)
    made = nbgrader("generate_assignment", "lesson*", cwd=folder)
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    for lesson in lessons:
        name = lesson.source_notebook(lang).name
        release = folder / "release" / _assignment(lesson.id, lang) / name
        assert release.is_file(), f"nbgrader generate_assignment made no {release}: {made.stderr[-2000:]}"
        for student, notebook in zip(STUDENTS, (lesson.source_notebook(lang), release)):
            target = folder / "submitted" / student / _assignment(lesson.id, lang) / name
            target.parent.mkdir(parents=True)
            shutil.copyfile(notebook, target)
    done = nbgrader("autograde", "lesson*", cwd=folder, timeout=3000)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return folder


# one xdist group per language: one worker builds and grades that language's course
@pytest.mark.parametrize("lang", [pytest.param(lang, marks=pytest.mark.xdist_group(plain_nbgrader_group(lang)))
                                  for lang in LANGUAGES])
@pytest.mark.parametrize("lesson_id", LESSONS)
def test_does_a_plain_nbgrader_course_grade_the_source_full_and_the_release_zero(lesson_id, lang, courses):
    graded = courses(lang)
    lesson = course.load().lesson(lesson_id)
    assignment = _assignment(lesson_id, lang)
    book = read_gradebook(graded, assignment)
    total = float(sum(e.points for e in lesson.exercises))
    assert set(book) == set(STUDENTS), book
    assert book["author"]["score"] == book["author"]["max_score"] == total, book["author"]
    assert book["untouched"]["score"] == 0 and book["untouched"]["max_score"] == total, book["untouched"]
    autograded = graded / "autograded" / "author" / assignment / lesson.source_notebook(lang).name
    cells = conventions.cells_by_grade_id(nbformat.read(autograded, as_version=4))
    # in the kernels' language (nbgrader's kernels inherit this process's: the notebook's own does not choose it)
    said = json.dumps(messages.say("check.hidden.public"), ensure_ascii=False)[1:-1]
    for exercise in lesson.exercises:
        shown = html.unescape(json.dumps(cells[conventions.check_id(exercise.id)].outputs, ensure_ascii=False))
        assert said in shown, f"{assignment} {exercise.id}: {shown[:2000]}"
