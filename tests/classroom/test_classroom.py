"""Real nbgrader autograding of every lesson: a synthetic class per lesson, graded with `gradtutor grade`.

One course folder is made with `gradtutor classroom init`, every lesson's
assignment is generated with nbgrader, and for each lesson a class is written into
submitted/: a correct submission, the untouched release, every known-wrong
answer of gradtutor/course/lessons/<lesson>/answers.toml (packed several exercises to a
notebook), an answer hard-coded from the visible inputs, an infinite loop, a
function that ends its process, a corrupt file, deleted / edited test cells,
a renamed function and a kernel that dies. `gradtutor grade --jobs 3` grades
it into nbgrader's SQLite gradebook; the tests read the exact scores back from
the gradebook, the result lines from the command's output, and the diagnoses
from `nbgrader generate_feedback`'s HTML. One lesson's class is also graded by
a serial `nbgrader autograde`, and the two gradebooks must be identical.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.course.secret import read_secret
from gradtutor.course.seeds import VISIBLE_SEEDS, course_seeds
from tests.support import REPO
from tests.support.classroom import (Slot, Student, answers_of, feedback_text, gradtutor, make_course, nbgrader,
                                     pristine_source, read_gradebook, solution_code, submission, tool_env)
from tests.support.hard_coded import hard_coded_code, reference_table

IDENTITY_LESSON = "lesson2"  # whose class is also graded by a serial `nbgrader autograde`
# The submissions of that class it grades: one of every kind (a serial run of the whole class takes long).
IDENTITY_CLASS = ("correct", "untouched", "answers01", "tampered", "cheater", "corrupt", "dies")

pytestmark = [pytest.mark.nbgrader, pytest.mark.xdist_group("classroom")]


# --------------------------------------------------------------------------- the answers


LOOP = '''def {function}(*args):
    import time
    while True:  # waits for a convergence that never comes
        time.sleep(0.2)
'''

CHEAT = '''import gradtutor.learner.notebook
gradtutor.learner.notebook.check = lambda *args, **kwargs: None  # "the checker is too strict"
'''

EXIT = '''def {function}(*args):
    import os
    os._exit(3)
'''


# --------------------------------------------------------------------------- the class


def build_class(folder: Path, lesson: course.Lesson, references: dict) -> list[Student]:
    """Write the synthetic class into folder/submitted/ and return what each submission must score."""
    release = nbformat.read(folder / "release" / lesson.id / lesson.notebook, as_version=4)
    exercises = list(lesson.exercises)
    assert len(exercises) >= 3, f"{lesson.id}: the tampered submission needs three exercises"
    solution = {e.id: solution_code(lesson, e) for e in exercises}
    correct = {e.id: Slot(solution[e.id], True, name="solution") for e in exercises}
    students: list[Student] = [Student("correct", dict(correct)),
                               Student("untouched", {e.id: Slot(None, False, ["not attempted"]) for e in exercises})]

    # Known-wrong answers, one per exercise per submission. The free slots (an exercise with fewer
    # wrong answers than another) take the special cases: an endless loop, a function that ends its
    # process, answers hard-coded from the visible inputs, then the other right answers people write
    # (they must earn the points); what is left is the solution.
    answers = answers_of(lesson.id)
    wrong = {e.id: [a for a in answers if a["exercise"] == e.id and a["expect"] != "pass"] for e in exercises}
    right = {e.id: [a for a in answers if a["exercise"] == e.id and a["expect"] == "pass"] for e in exercises}
    for exercise in exercises:
        assert wrong[exercise.id], f"{lesson.id} {exercise.id}: no known-wrong answers in its answers.toml"
    queue = {e.id: [Slot(a["code"], False, [a["diagnosis"]] if a.get("diagnosis") else [], a["name"])
                    for a in wrong[e.id]] for e in exercises}
    hidden_values = {}
    hard_coded = {}
    for exercise in exercises:
        seeds = references[lesson.id][exercise.id]
        visible = {seed: entry for seed, entry in seeds.items() if entry["visible"]}
        hard_coded[exercise.id] = Slot(hard_coded_code(exercise, visible), False, ["does it hard-code values or shapes?"],
                                       "hard-coded")
        hidden_values[exercise.id] = [entry.get("tuple") or entry["value"] for entry in seeds.values() if not entry["visible"]]
    rounds = max(len(q) for q in queue.values())
    room = lambda e: rounds - len(queue[e.id])  # noqa: E731
    specials = [("loop", lambda e: Slot(LOOP.format(function=e.function), False, ["did not finish within"], "infinite loop")),
                ("exit", lambda e: Slot(EXIT.format(function=e.function), False, ["ended the process"], "os._exit"))]
    if all(room(e) < 2 for e in exercises) and sum(room(e) for e in exercises) < len(specials) + 1:
        rounds += 1  # no room for the special cases among the wrong answers: one more submission
    for _, make in specials:  # first in their exercise's list: the slow loop starts grading first
        roomiest = max(exercises, key=room)
        queue[roomiest.id].insert(0, make(roomiest))
    for exercise in exercises:
        if room(exercise) > 0:
            queue[exercise.id].append(hard_coded[exercise.id])
    if not any(hard_coded[e.id] in queue[e.id] for e in exercises):
        roomiest = max(exercises, key=room)
        if room(roomiest) == 0:
            rounds += 1
        queue[roomiest.id].append(hard_coded[roomiest.id])
    for exercise in exercises:
        queue[exercise.id].extend(Slot(a["code"], True, name=a["name"]) for a in right[exercise.id][:room(exercise)])
    for number in range(rounds):
        slots = {e.id: (queue[e.id][number] if number < len(queue[e.id]) else correct[e.id]) for e in exercises}
        # Only the cells that matter: set-up, definitions, answers, tests (a learner may delete the rest).
        students.append(Student(f"answers{number + 1:02d}", slots, hidden_values=hidden_values, trimmed=True))

    # What breaks the machinery.
    e0, e1, e2 = exercises[:3]
    tampered = dict(correct)
    tampered[e0.id] = Slot(solution[e0.id], False, name="its test cell deleted")
    tampered[e1.id] = Slot(None, False, name="its test cell edited")
    renamed = re.sub(rf"def {e2.function}\(", f"def {e2.function}_v2(", solution[e2.id])
    tampered[e2.id] = Slot(renamed, False, [f"name '{e2.function}' is not defined"], "renamed function")
    students.append(Student("tampered", tampered, [f"test cell {conventions.check_id(e0.id)} deleted",
                                                             f"test cell {conventions.check_id(e1.id)} edited"]))
    students.append(Student("corrupt", {e.id: Slot(solution[e.id], False) for e in exercises},
                            ["corrupt notebook", "scored 0"], graded=False))
    leaning = leaning_on_a_demonstration(release, exercises, solution)
    if leaning is not None:
        students.append(leaning)
    if lesson.id == IDENTITY_LESSON:  # these two do not depend on the lesson: one class has them
        # Wrong answers, and a cell that makes check() pass everything inside the kernel: nbgrader alone
        # gives full marks; gradtutor grade re-checks out of the kernel, scores 0 and flags it.
        students.append(Student("cheater", {e.id: Slot(wrong[e.id][0]["code"], False) for e in exercises},
                                ["check() bypassed?", "flagged for review"], extra_cell=CHEAT))
        dies = {e.id: Slot(solution[e.id], False) for e in exercises}
        dies[e0.id] = Slot(solution[e0.id] + "\nimport os\nos._exit(1)  # 'restart the kernel'\n", False)
        students.append(Student("dies", dies, ["kernel died", "scored 0"], graded=False))

    for student in students:
        nb = submission(release, student)
        target = folder / "submitted" / student.id / lesson.id / lesson.notebook
        target.parent.mkdir(parents=True, exist_ok=True)
        text = nbformat.writes(nb)
        if student.id == "corrupt":
            text = text[: len(text) // 2]  # a notebook saved half-way
        target.write_text(text)
    return students


LEANING = "leans_on_a_demonstration"


def leaning_on_a_demonstration(release, exercises, solution: dict[str, str]) -> Student | None:
    """A correct submission one of whose answers reads a name a demonstration cell defines (a def, an import or a
    constant, which the checker loads): `gradtutor grade` must run that cell, or the answer fails."""
    import ast
    import random

    from gradtutor.course import extract

    trees = [ast.parse(cell.source) for cell in release.cells if conventions.is_demonstration(cell)]
    functions = extract.notebook_functions(trees)
    kinds = (extract.Statement.FUNCTION, extract.Statement.IMPORT, extract.Statement.CONSTANT)
    names = sorted({name for tree in trees for node in tree.body if extract.statement_kind(node, functions) in kinds
                    for name in _bound(node)})
    if not names:
        return None  # the lesson marks no demonstration
    rng = random.Random()
    name, exercise = rng.choice(names), rng.choice(exercises)
    code = solution[exercise.id]
    function = next(node for node in ast.parse(code).body
                    if isinstance(node, ast.FunctionDef) and node.name == exercise.function)
    first = function.body[0]
    lines = code.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + f"{name}  # read from a demonstration cell\n")
    slots = {e.id: Slot(solution[e.id], True, name="solution") for e in exercises}
    slots[exercise.id] = Slot("".join(lines), True, name=f"reads {name}")
    return Student(LEANING, slots)


def _bound(node) -> list[str]:
    import ast

    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def expected_points(lesson: course.Lesson, student: Student) -> dict[str, float]:
    return {conventions.check_id(e.id): float(e.points if student.slots[e.id].earns and student.graded else 0)
            for e in lesson.exercises}


# --------------------------------------------------------------------------- fixtures


def _lessons() -> list[str]:
    return [lesson.id for lesson in course.load().lessons]


@dataclasses.dataclass
class GradedClass:
    lesson: course.Lesson
    folder: Path
    students: list[Student]
    output: str
    returncode: int
    pristine: Path  # a copy of the course before grading, for the serial nbgrader run


class Classes:
    """Each lesson's class, built and graded once per test session, when a test first asks for it.

    Every class is handed in to one course holding every lesson, as a teacher's course holds them: `gradtutor
    classroom init` and `nbgrader generate_assignment` run once, not once per lesson, and the reference answers
    of every lesson (on this course's hidden inputs) come from one TensorFlow process. Each lesson is still
    graded by a `gradtutor grade` of its own, and every test reads only its lesson's gradebook entries,
    autograded and feedback folders.
    """

    def __init__(self, tmp_path_factory):
        self._tmp = tmp_path_factory
        self._graded: dict[str, GradedClass] = {}
        self._course: tuple[Path, dict] | None = None

    def get(self, lesson_id: str) -> GradedClass:
        if lesson_id not in self._graded:
            self._graded[lesson_id] = self._grade(course.load().lesson(lesson_id))
        return self._graded[lesson_id]

    def _shared_course(self) -> tuple[Path, dict]:
        """The course folder and its reference table (the visible inputs and each lesson's hidden ones)."""
        if self._course is None:
            lessons = _lessons()
            for lesson_id in lessons:
                lesson = course.load().lesson(lesson_id)
                assert lesson.exercises, f"{lesson.id} has no exercises in gradtutor/course/course.toml"
                assert lesson.source_notebook().is_file(), f"{lesson.source_notebook()} is missing"
            folder = make_course(self._tmp.mktemp("classes") / "course", lessons)
            secret = read_secret(folder / "nbgrader_config.py")
            seeds = {lesson_id: VISIBLE_SEEDS + course_seeds(secret, lesson_id) for lesson_id in lessons}
            self._course = folder, reference_table(lessons, seeds)
        return self._course

    def _grade(self, lesson: course.Lesson) -> GradedClass:
        folder, references = self._shared_course()
        root = self._tmp.mktemp(f"class-{lesson.id}")
        students = build_class(folder, lesson, references)
        # the identity test's class: every kind of submission of this lesson, once, in a copy of the course as
        # it is before this lesson is graded (another lesson's gradebook entries, never its files, may be there)
        pristine = root / "pristine"
        submitted = pristine_source(folder)
        shutil.copytree(folder, pristine, ignore=lambda where, names: [
            n for n in names if (Path(where) == folder and n in ("autograded", "feedback"))
            or (Path(where) == submitted and n not in IDENTITY_CLASS)
            or (Path(where).parent == submitted and n != lesson.id)])
        # 3 jobs on 2 cores: while one submission waits (a kernel starting, a check's process), another runs
        done = gradtutor("grade", str(folder), lesson.id, "--jobs", "3", "--verbose", cwd=root)
        feedback = nbgrader("generate_feedback", lesson.id, cwd=folder)
        assert feedback.returncode == 0, feedback.stdout[-2000:] + feedback.stderr[-2000:]
        return GradedClass(lesson, folder, students, done.stdout + done.stderr, done.returncode, pristine)


@pytest.fixture(scope="session")
def classes(tmp_path_factory) -> Classes:
    return Classes(tmp_path_factory)


@pytest.fixture(params=_lessons())
def graded(request, classes) -> GradedClass:
    return classes.get(request.param)


# --------------------------------------------------------------------------- tests


def test_every_submission_gets_its_exact_score_in_the_gradebook(graded):
    book = read_gradebook(graded.folder, graded.lesson.id)
    assert sorted(book) == sorted(s.id for s in graded.students), graded.output
    for student in graded.students:
        want = expected_points(graded.lesson, student)
        got = {name: grade[4] for name, grade in book[student.id]["grades"].items()}
        assert got == want, f"{student.id}: {got} != {want}\n{graded.output}"
        assert book[student.id]["score"] == sum(want.values())
        assert book[student.id]["max_score"] == graded.lesson.points


def test_a_notebook_that_replaces_check_is_caught_and_flagged_for_review(classes):
    graded = classes.get(IDENTITY_LESSON)
    book = read_gradebook(graded.folder, graded.lesson.id)
    grades = book["cheater"]["grades"]
    assert all(grade[0] == 0 and grade[2] for grade in grades.values()), grades  # auto 0, needs manual grading
    text = feedback_text(graded.folder, "cheater", graded.lesson.id)
    assert "passed inside the notebook, but not when checked outside its kernel" in text
    # honest notebooks are not flagged
    assert not any(grade[2] for student in ("correct", "untouched") for grade in book[student]["grades"].values())


def test_a_correct_submission_gets_every_point_and_the_release_none(graded):
    book = read_gradebook(graded.folder, graded.lesson.id)
    assert book["correct"]["score"] == graded.lesson.points
    assert book["untouched"]["score"] == 0
    # nbgrader scored every test cell itself: no cell was left for manual grading
    assert not any(grade[2] for grade in book["correct"]["grades"].values())


def test_every_submission_has_a_result_line_naming_student_notebook_and_score(graded):
    lines = graded.output.splitlines()
    notebook = graded.lesson.notebook
    for student in graded.students:
        mine = [line for line in lines if re.match(rf"^\S\s+{re.escape(student.id)}\s+{re.escape(notebook)}\s", line)]
        assert len(mine) == 1, f"{student.id}: {mine}\n{graded.output}"
        points = sum(expected_points(graded.lesson, student).values())
        assert f"{points:g}/{graded.lesson.points:g}" in mine[0], mine[0]
        for text in student.expect_in_line:
            assert text in mine[0], f"{student.id}: {text!r} not in {mine[0]!r}"
    assert graded.returncode == 1, "corrupt and dead-kernel submissions could not be autograded: exit code 1"
    assert "Traceback" not in graded.output


def test_feedback_shows_the_diagnosis_of_every_lost_point(graded):
    for student in graded.students:
        if not student.graded:
            assert not (graded.folder / "feedback" / student.id / graded.lesson.id).exists()
            continue
        text = feedback_text(graded.folder, student.id, graded.lesson.id)
        if student.extra_cell == CHEAT:
            continue  # its check() never ran; the re-check's comment is tested on its own
        for exercise_id, slot in student.slots.items():
            for expected in slot.feedback:
                assert expected.lower() in text.lower(), f"{student.id} {exercise_id} ({slot.name}): {expected!r} not in feedback"


def test_feedback_never_shows_the_hidden_inputs_expected_values(graded):
    checked = 0
    for student in graded.students:
        if not student.hidden_values:
            continue
        text = feedback_text(graded.folder, student.id, graded.lesson.id)
        shown = set(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text))
        submitted = graded.folder / "submitted" / student.id / graded.lesson.id / graded.lesson.notebook
        for exercise_id, slot in student.slots.items():
            if slot.name != "hard-coded":
                continue
            assert "does it hard-code values or shapes?" in text
            secret = {f"{v:.6g}" for v in _flat(student.hidden_values[exercise_id]) if abs(v) > 1e-3}
            # A number the learner's own notebook holds (the lesson's prose and code, the hard-coded table) is
            # not a leak when the feedback, which shows the whole notebook, repeats it: lesson 7's text says
            # "sigmoid's slope is at most 0.25", and a hidden input of 4 entries has gradients of exactly ±1/4.
            already_seen = set(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", submitted.read_text()))
            leaked = {s for s in secret if s in shown and s not in already_seen and "." in s}
            assert not leaked, f"{student.id} {exercise_id}: hidden reference values in the feedback: {sorted(leaked)[:5]}"
            checked += 1
    assert checked >= 1, "every class has at least one answer hard-coded from the visible inputs"


def _flat(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _flat(item)
    else:
        yield float(value)


def test_hidden_tests_are_in_the_gradebook_but_not_in_the_release(graded):
    release = (graded.folder / "release" / graded.lesson.id / graded.lesson.notebook).read_text()
    assert "BEGIN HIDDEN TESTS" not in release and 'seeds=\\"hidden\\"' not in release
    autograded = (graded.folder / "autograded" / "correct" / graded.lesson.id / graded.lesson.notebook).read_text()
    for exercise in graded.lesson.exercises:
        assert f'check(\\"{graded.lesson.id}\\", \\"{exercise.id}\\"' in release
    assert autograded.count('seeds=\\"hidden\\"') == len(graded.lesson.exercises)


def autograded_cells(graded: GradedClass, student: str) -> list:
    path = graded.folder / "autograded" / student / graded.lesson.id / graded.lesson.notebook
    return nbformat.read(path, as_version=4).cells


def test_demonstrations_no_cell_reads_are_left_out_with_a_mark_and_one_an_answer_reads_runs(graded):
    from gradtutor.classroom.kernels.skip_demonstrations import SKIPPED_MARK
    from gradtutor.course import cell_names

    release = nbformat.read(graded.folder / "release" / graded.lesson.id / graded.lesson.notebook, as_version=4)
    demos = [i for i, cell in enumerate(release.cells) if conventions.is_demonstration(cell)]
    if not demos:
        assert LEANING not in {s.id for s in graded.students}
        return  # the lesson marks none: every cell runs
    def left_out(cell) -> bool:
        return (cell.metadata.get(conventions.METADATA_KEY) or {}).get(SKIPPED_MARK) is True

    correct = autograded_cells(graded, "correct")
    assert [i for i, cell in enumerate(correct) if left_out(cell)] == demos
    leaning = autograded_cells(graded, LEANING)
    student = next(s for s in graded.students if s.id == LEANING)
    read = next(slot.name.removeprefix("reads ") for slot in student.slots.values() if slot.name.startswith("reads "))
    defining = [i for i in demos if read in cell_names.of(release.cells[i].source).binds]
    assert defining and not any(left_out(leaning[i]) for i in defining), read
    assert all("execution" in leaning[i].metadata for i in defining)  # run by nbgrader's client, which timed it


def test_serial_nbgrader_autograde_leaves_the_identical_gradebook(classes):
    graded = classes.get(IDENTITY_LESSON)
    done = nbgrader("autograde", graded.lesson.id, cwd=graded.pristine)
    assert done.returncode == 1, "nbgrader itself reports the corrupt and dead-kernel submissions"
    serial = read_gradebook(graded.pristine, graded.lesson.id)
    parallel = {student: entry for student, entry in read_gradebook(graded.folder, graded.lesson.id).items()
                if student in IDENTITY_CLASS}
    assert sorted(serial) == sorted(IDENTITY_CLASS)
    # The one difference: nbgrader alone is fooled by the cell that replaces check();
    # gradtutor grade re-checked those answers out of the kernel and flagged them.
    fooled, caught = serial.pop("cheater"), parallel.pop("cheater")
    assert fooled["score"] == graded.lesson.points
    assert caught["score"] == 0 and all(grade[2] for grade in caught["grades"].values())
    assert serial == parallel
    def autograded(folder: Path) -> list[str]:  # the students with an autograded copy of this lesson
        return sorted(p.parent.name for p in (folder / "autograded").glob(f"*/{graded.lesson.id}"))

    assert autograded(graded.pristine) == [s for s in autograded(graded.folder) if s in IDENTITY_CLASS]


def test_graded_submissions_are_skipped_without_force(classes):
    graded = classes.get(IDENTITY_LESSON)
    before = read_gradebook(graded.folder, graded.lesson.id)
    again = gradtutor("grade", str(graded.folder), graded.lesson.id, "--student", "correct", "--student", "untouched",
                      cwd=graded.folder.parent)
    assert again.returncode == 0, again.stdout + again.stderr
    assert re.search(r"correct\s+lesson2\.ipynb\s+5/5\s+already autograded", again.stdout), again.stdout
    assert re.search(r"untouched\s+lesson2\.ipynb\s+0/5\s+already autograded", again.stdout), again.stdout
    assert read_gradebook(graded.folder, graded.lesson.id) == before


REWORDED = ("reworded: raised, did not finish within, ran out of memory, crashed with, not attempted, "
            "stopped unexpectedly — words that must not decide a status")


def reworded_checkout(folder: Path) -> Path:
    """A copy of the package whose every diagnosis (each lesson's lesson.toml) says the same misleading sentence."""
    for part in ("gradtutor", "lessons", "solutions"):
        shutil.copytree(REPO / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    reworded = 0
    for manifest in sorted((folder / "gradtutor" / "course" / "lessons").glob("*/lesson.toml")):
        text, count = re.subn(r'(?m)^say = (["\']).*\1$', lambda _: f"say = {json.dumps(REWORDED)}",
                              manifest.read_text())
        manifest.write_text(text)
        reworded += count
    assert reworded >= 10, "every exercise's diagnoses were reworded"
    return folder


def lost_points(output: str, students) -> dict[str, dict[str, str]]:
    """student → {exercise: the group its result line puts it in (wrong, error, not attempted)}."""
    found = {}
    for student in students:
        line = next(line for line in output.splitlines() if re.match(rf"^\S\s+{re.escape(student)}\s", line))
        groups = re.findall(r"(not attempted|wrong|error|no test cell): ([\w, ]+)", line)
        found[student] = {name.strip(): label for label, names in groups for name in names.split(",")}
    return found


def test_rewording_every_diagnosis_changes_no_status_and_no_score(classes, tmp_path):
    graded = classes.get(IDENTITY_LESSON)
    checkout = reworded_checkout(tmp_path / "checkout")
    course_copy = tmp_path / "course"
    shutil.copytree(graded.pristine, course_copy)
    env = dict(tool_env(), PYTHONPATH=str(checkout))  # the grader, its judges and the kernels read the copy
    # --force: the serial nbgrader test may have autograded the pristine copy already
    done = subprocess.run([sys.executable, "-m", "gradtutor", "grade", str(course_copy), graded.lesson.id,
                           "--jobs", "2", "--force"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=1200)
    assert REWORDED in feedback_or_log(done, course_copy, graded.lesson.id), "the reworded manifest was used"
    students = [s for s in IDENTITY_CLASS if s != "cheater"]
    assert lost_points(done.stdout, students) == lost_points(graded.output, students), done.stdout
    reworded = read_gradebook(course_copy, graded.lesson.id)
    original = read_gradebook(graded.folder, graded.lesson.id)
    assert {s: reworded[s]["grades"] for s in students} == {s: original[s]["grades"] for s in students}


def feedback_or_log(done: subprocess.CompletedProcess, folder: Path, lesson: str) -> str:
    """Where the reworded diagnoses show: the autograded notebooks' outputs."""
    texts = [done.stdout]
    for path in (folder / "autograded").glob(f"*/{lesson}/*.ipynb"):
        texts.append(path.read_text())
    return "\n".join(texts)
