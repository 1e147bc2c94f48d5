"""Does each course grade with hidden inputs of its own, which nothing in the package reveals and no
submission's code can read? Two courses made by `gradtutor classroom init`, one lesson, real nbgrader."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.course.secret import require_secret
from gradtutor.course.seeds import PUBLIC_HIDDEN_SEEDS, VISIBLE_SEEDS, course_seeds
from tests.support.classroom import Slot, Student, gradtutor, make_course, nbgrader, read_gradebook, solution_code, submission
from tests.support.hard_coded import hard_coded_code, reference_table

pytestmark = [pytest.mark.nbgrader, pytest.mark.xdist_group("classroom")]

LESSON = course.load().lesson("lesson1")

# A cell of a submission's own that looks for the secret where a kernel could: the course's config
# (by absolute and relative path) and the environment.
SNOOP = '''import os
for path in ({config!r}, "../../../nbgrader_config.py"):
    try:
        print("CONFIG", open(path).read())
    except OSError as exc:
        print("CONFIG", path, exc.__class__.__name__)
print("ENVIRON", dict(os.environ))
'''


@dataclasses.dataclass
class Graded:
    folders: dict  # course name → folder
    secrets: dict  # course name → its secret


def _hard_coded(table: dict, seeds) -> dict[str, Slot]:
    """Every exercise answered by a lookup table of the reference answers on `seeds`."""
    return {e.id: Slot(hard_coded_code(e, {str(s): table[e.id][str(s)] for s in seeds}), False)
            for e in LESSON.exercises}


def _write(folder: Path, students: list[Student]) -> None:
    release = nbformat.read(folder / "release" / LESSON.id / LESSON.notebook, as_version=4)
    for student in students:
        target = folder / "submitted" / student.id / LESSON.id / LESSON.notebook
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(nbformat.writes(submission(release, student)))


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Graded:
    root = tmp_path_factory.mktemp("secret-courses")
    folders = {name: make_course(root / name, [LESSON.id]) for name in ("a", "b")}
    secrets = {name: require_secret(folder) for name, folder in folders.items()}
    hidden_a = course_seeds(secrets["a"], LESSON.id)
    table = reference_table([LESSON.id], VISIBLE_SEEDS + PUBLIC_HIDDEN_SEEDS + hidden_a)[LESSON.id]
    correct = {e.id: Slot(solution_code(LESSON, e), True) for e in LESSON.exercises}
    # Right on every input the package holds (the visible and its public hidden ones), wrong elsewhere.
    package = Student("package", _hard_coded(table, VISIBLE_SEEDS + PUBLIC_HIDDEN_SEEDS), trimmed=True)
    # Right on course a's inputs: what a student of course a could write only with its secret.
    knows_a = Student("knows_a", _hard_coded(table, VISIBLE_SEEDS + hidden_a), trimmed=True)
    config = str((folders["a"] / "nbgrader_config.py").resolve())
    snoop = Student("snoop", dict(correct), trimmed=True, extra_cell=SNOOP.format(config=config))
    _write(folders["a"], [Student("correct", correct, trimmed=True), package, knows_a, snoop])
    _write(folders["b"], [Student("correct", correct, trimmed=True), knows_a])
    pristine = root / "a-serial"  # course a before grading, for a plain `nbgrader autograde`
    shutil.copytree(folders["a"], pristine)
    for folder in folders.values():
        done = gradtutor("grade", str(folder), LESSON.id, "--jobs", "2", cwd=root)
        assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    shutil.rmtree(pristine / "submitted" / "snoop")
    shutil.rmtree(pristine / "submitted" / "package")
    serial = nbgrader("autograde", LESSON.id, cwd=pristine)
    assert serial.returncode == 0, serial.stdout[-2000:] + serial.stderr[-2000:]
    return Graded(dict(folders, serial=pristine), secrets)


def _scores(folder: Path) -> dict[str, dict[str, float]]:
    return {student: {name: grade[4] for name, grade in entry["grades"].items()}
            for student, entry in read_gradebook(folder, LESSON.id).items()}


def _full() -> dict[str, float]:
    return {conventions.check_id(e.id): float(e.points) for e in LESSON.exercises}


def test_do_two_courses_grade_with_different_hidden_inputs(graded):
    assert graded.secrets["a"] != graded.secrets["b"]
    seeds_a, seeds_b = (course_seeds(graded.secrets[c], LESSON.id) for c in ("a", "b"))
    assert seeds_a != seeds_b and not set(seeds_a) & set(seeds_b + PUBLIC_HIDDEN_SEEDS)
    a, b = _scores(graded.folders["a"]), _scores(graded.folders["b"])
    assert a["correct"] == b["correct"] == _full(), (a, b)
    # the answers to course a's hidden inputs earn every point there and none in course b
    assert a["knows_a"] == _full(), a
    assert set(b["knows_a"].values()) == {0.0}, b


def test_is_an_answer_hard_coded_from_the_package_right_on_the_visible_checks_and_wrong_on_the_hidden(graded):
    assert set(_scores(graded.folders["a"])["package"].values()) == {0.0}
    autograded = graded.folders["a"] / "autograded" / "package" / LESSON.id / LESSON.notebook
    cells = conventions.cells_by_grade_id(nbformat.read(autograded, as_version=4))
    for exercise in LESSON.exercises:
        shown = json.dumps(cells[conventions.check_id(exercise.id)].outputs)
        assert f"matches the reference on {len(VISIBLE_SEEDS)} inputs" in shown, shown[:2000]  # the visible check
        assert "wrong on an input you have not seen: does it hard-code values or shapes?" in shown  # the hidden one


def test_can_a_submissions_code_not_read_the_courses_secret(graded):
    secret = graded.secrets["a"]
    autograded = graded.folders["a"] / "autograded" / "snoop" / LESSON.id / LESSON.notebook
    text = autograded.read_text()
    assert text.count("PermissionError") == 2, "both ways to the config were tried, and refused"
    assert "ENVIRON" in text and secret not in text
    assert _scores(graded.folders["a"])["snoop"] == _full()
    assert not any(secret in path.read_text(errors="replace")
                   for path in (graded.folders["a"] / "autograded").rglob("*") if path.is_file())


def test_does_a_plain_nbgrader_autograde_use_the_same_hidden_inputs(graded):
    serial, parallel = _scores(graded.folders["serial"]), _scores(graded.folders["a"])
    assert serial == {student: parallel[student] for student in ("correct", "knows_a")}
