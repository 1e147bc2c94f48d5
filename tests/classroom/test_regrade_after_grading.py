"""After a real grading run: does a re-run with nothing new start no grading process and print what the first
run printed, and does a re-run after a new submission grade that one only?

A drawn class (each exercise answered with the solution, a known-wrong answer, or not at
all) is graded by `gradtutor grade`. The re-run goes in a process of its own whose grading
pool refuses to start; it must print the same scores, summary and class report, having
loaded neither nbgrader nor TensorFlow. Then one more student hands in, and the next run
grades that submission and leaves every other one, and its gradebook entry, as it was.
"""
from __future__ import annotations

import random
import re
import string
import subprocess
import sys

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import answers_of, gradtutor, make_course, read_gradebook, solution_code, tool_env

pytestmark = pytest.mark.nbgrader

# `gradtutor grade` with a pool that refuses to start, saying at the end which heavy packages it loaded
RERUN = """
import sys
from gradtutor.classroom.grading import pool

class Refused:
    def __init__(self, *args, **kwargs):
        raise SystemExit("a grading process was started")

pool.Pool = Refused
from gradtutor.cli import main

code = main(sys.argv[1:])
print("loaded:", *sorted({m.split(".")[0] for m in sys.modules} & {"nbgrader", "sqlalchemy", "tensorflow"}),
      file=sys.stderr)
sys.exit(code)
"""
MARKS = ("✓", "✗", "!", "=")


def _submit(folder, lesson, student: str, rng: random.Random) -> None:
    nb = nbformat.read(folder / "release" / lesson.id / lesson.notebook, as_version=4)
    wrong = [a for a in answers_of(lesson.id) if a["expect"] == "fail"]
    answers = {}
    for exercise in lesson.exercises:
        kind = rng.choice(["solution", "wrong", "untouched"])
        choices = [a["code"] for a in wrong if a["exercise"] == exercise.id]
        if kind == "solution" or (kind == "wrong" and not choices):
            answers[exercise.id] = solution_code(lesson, exercise)
        elif kind == "wrong":
            answers[exercise.id] = rng.choice(choices)
    for cell in nb.cells:
        if conventions.grade_id(cell) in answers:
            cell.source = answers[conventions.grade_id(cell)]
    target = folder / "submitted" / student / lesson.id / lesson.notebook
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)


def _scores(stdout: str, students) -> dict[str, tuple[str, str]]:
    """student -> (mark, points) from the command's result lines."""
    found = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) > 3 and words[0] in MARKS and words[1] in students:
            found[words[1]] = (words[0], words[3])
    return found


def _after_results(stdout: str, students) -> str:
    """What follows the result lines (the summary and the class report), the seconds it took left out."""
    lines = stdout.splitlines()
    last = max(i for i, line in enumerate(lines) if line.split()[:1] and line.split()[0] in MARKS
               and len(line.split()) > 1 and line.split()[1] in students)
    return re.sub(r"\b\d+ s\b", "N s", "\n".join(lines[last + 1:]))


def _autograded(folder, students, lesson) -> dict[str, bytes]:
    return {s: (folder / "autograded" / s / lesson.id / lesson.notebook).read_bytes() for s in students}


def test_a_rerun_prints_the_first_runs_scores_and_grades_only_a_new_submission(tmp_path):
    rng = random.Random(random.randrange(2**32))
    lesson = rng.choice([lesson for lesson in course.load().lessons if lesson.exercises])
    folder = make_course(tmp_path / "course", [lesson.id])
    students = sorted({"".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9))) for _ in range(3)})
    for student in students:
        _submit(folder, lesson, student, rng)

    first = gradtutor("grade", str(folder), lesson.id, "--jobs", "2", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    book, graded = read_gradebook(folder, lesson.id), _autograded(folder, students, lesson)

    rerun = subprocess.run([sys.executable, "-c", RERUN, "grade", str(folder), lesson.id, "--jobs", "2"],
                           cwd=tmp_path, env=tool_env(), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert rerun.stderr.strip().splitlines()[-1] == "loaded:"  # no grading process, nor nbgrader or TensorFlow
    assert {s: points for s, (_, points) in _scores(rerun.stdout, students).items()} == \
        {s: points for s, (_, points) in _scores(first.stdout, students).items()}
    assert {mark for mark, _ in _scores(rerun.stdout, students).values()} == {"="}  # each: already autograded
    assert _after_results(rerun.stdout, students) == _after_results(first.stdout, students)

    newcomer = "new" + "".join(rng.choices(string.ascii_lowercase, k=5))
    _submit(folder, lesson, newcomer, rng)
    after = gradtutor("grade", str(folder), lesson.id, "--jobs", "2", cwd=tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr
    marks = {s: mark for s, (mark, _) in _scores(after.stdout, [*students, newcomer]).items()}
    assert marks.pop(newcomer) != "=" and set(marks.values()) == {"="} and sorted(marks) == students
    now = read_gradebook(folder, lesson.id)
    assert {s: now[s] for s in students} == book and newcomer in now
    assert _autograded(folder, students, lesson) == graded  # the others were not graded again
