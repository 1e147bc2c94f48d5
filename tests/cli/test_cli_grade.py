"""`gradtutor grade` and `gradtutor classroom init` as an instructor meets them: help, bad input,
a folder made from the installed package, the progress bar, a stuck submission stopped by --timeout.

The per-lesson grading of whole classes is in test_classroom.py.
"""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import gradtutor, make_course, read_gradebook, solution_code, tool_env

REPO = Path(__file__).resolve().parents[2]
LESSON = "lesson2"


@pytest.mark.unit
def test_help_lists_grade_and_classroom_without_importing_nbgrader(tmp_path):
    shown = gradtutor("--help", cwd=tmp_path)
    assert shown.returncode == 0
    assert "grade" in shown.stdout and "classroom" in shown.stdout
    grade_help = gradtutor("grade", "--help", cwd=tmp_path)
    assert grade_help.returncode == 0
    for option in ("COURSE_DIR", "LESSON", "--jobs", "--student", "--force", "--timeout"):
        assert option in grade_help.stdout
    probe = subprocess.run([sys.executable, "-c", "import sys; from gradtutor import cli; cli.build_parser(); "
                            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('nbgrader', 'tensorflow')))"],
                           capture_output=True, text=True, env=tool_env())
    assert probe.stdout.strip() == "[]", probe.stdout + probe.stderr


@pytest.mark.unit
def test_classroom_init_makes_a_course_folder_and_never_overwrites(tmp_path):
    folder = tmp_path / "my course"
    made = gradtutor("classroom", "init", str(folder), "--course-id", "tf-101", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    config = (folder / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.course_id = 'tf-101'" in config
    assert 'c.CourseDirectory.source_directory = "source"' in config
    assert re.search(r"c\.Execute\.timeout = \d{3}", config)
    compile(config, "nbgrader_config.py", "exec")
    lessons = [l for l in course.load().lessons if l.source_notebook().is_file()]
    assert lessons
    for lesson in lessons:
        copied = folder / "source" / lesson.id / lesson.notebook
        assert copied.read_bytes() == lesson.source_notebook().read_bytes()  # with solutions and hidden tests
    assert "nbgrader generate_assignment lesson1" in made.stdout

    # An instructor's edits survive a second run; a deleted notebook comes back.
    first = lessons[0]
    edited = folder / "source" / first.id / first.notebook
    edited.write_text(edited.read_text().replace("GradientTape", "GradientTape", 1) + " ")
    (folder / "nbgrader_config.py").write_text(config + "\n# mine\n")
    before = edited.read_text()
    if len(lessons) > 1:
        (folder / "source" / lessons[1].id / lessons[1].notebook).unlink()
    again = gradtutor("classroom", "init", str(folder), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert edited.read_text() == before
    assert (folder / "nbgrader_config.py").read_text().endswith("# mine\n")
    assert "kept (exists)" in again.stdout
    if len(lessons) > 1:
        assert (folder / "source" / lessons[1].id / lessons[1].notebook).is_file()


@pytest.mark.unit
def test_classroom_without_a_command_says_which_there_are(tmp_path):
    done = gradtutor("classroom", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "classroom init" in done.stderr


@pytest.fixture(scope="module")
def small_course(tmp_path_factory) -> Path:
    """A course folder with lesson2 generated and no submissions yet."""
    return make_course(tmp_path_factory.mktemp("small") / "course", [LESSON])


@pytest.mark.parametrize("args, says", [
    (["grade", "{missing}", LESSON], "no such course folder"),
    (["grade", "{course}", "lesson99"], "no lesson 'lesson99'"),
    (["grade", "{course}", LESSON, "--jobs", "0"], "--jobs must be at least 1"),
    (["grade", "{course}", LESSON], "no submissions of lesson2"),
    (["grade", "{course}", LESSON, "--student", "nobody"], "no submission of lesson2 from nobody"),
])
@pytest.mark.nbgrader
def test_bad_input_is_one_line_and_exit_code_2(small_course, tmp_path, args, says):
    filled = [a.format(course=small_course, missing=tmp_path / "nowhere") for a in args]
    if "--student" in filled:
        (small_course / "submitted" / "someone" / LESSON).mkdir(parents=True, exist_ok=True)
        (small_course / "submitted" / "someone" / LESSON / f"{LESSON}.ipynb").write_text("{}")
    done = gradtutor(*filled, cwd=tmp_path)
    try:
        assert done.returncode == 2, done.stdout + done.stderr
        assert says in done.stderr
        assert done.stderr.startswith("gradtutor: ") and done.stderr.strip().count("\n") == 0
        assert "Traceback" not in done.stderr + done.stdout
    finally:
        if "--student" in filled:
            import shutil

            shutil.rmtree(small_course / "submitted", ignore_errors=True)


def _submit(folder: Path, student: str, nb) -> None:
    target = folder / "submitted" / student / LESSON / f"{LESSON}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def _correct(folder: Path):
    lesson = course.load().lesson(LESSON)
    nb = nbformat.read(folder / "release" / LESSON / lesson.notebook, as_version=4)
    answers = {e.id: solution_code(lesson, e) for e in lesson.exercises}
    for cell in nb.cells:
        grade_id = conventions.grade_id(cell)
        if grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def _on_a_terminal(args: list[str], cwd: Path, timeout: float = 900) -> tuple[int, str]:
    """Run a command with its output on a pseudo-terminal, as an instructor sees it."""
    main, child = pty.openpty()
    env = tool_env()
    env.update(COLUMNS="160", LINES="40", TERM="xterm-256color")
    process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=child, stderr=child,
                               close_fds=True)
    os.close(child)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 1.0)
        if ready:
            try:
                data = os.read(main, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    process.wait(timeout=30)
    os.close(main)
    return process.returncode, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.nbgrader
@pytest.mark.xdist_group("classroom")
def test_timeout_stops_a_stuck_submission_and_the_batch_goes_on(tmp_path):
    """A kernel stuck where nbgrader's own cell limit (300 s) is far away: --timeout stops it, kernel
    and all, scores it 0, and a fresh worker grades the next submission; the progress bar shows on a
    terminal. Then: graded submissions are skipped without --force, as nbgrader skips them."""
    folder = make_course(tmp_path / "course", [LESSON])
    stuck = _correct(folder)
    stuck.cells.insert(0, nbformat.v4.new_code_cell("import time\nwhile True:  # waiting for data that never comes\n"
                                                    "    time.sleep(1)\n"))
    _submit(folder, "amy", stuck)
    (folder / "submitted" / "bob" / LESSON).mkdir(parents=True)
    (folder / "submitted" / "bob" / LESSON / f"{LESSON}.ipynb").write_text('{"cells": [')

    code, output = _on_a_terminal([sys.executable, "-m", "gradtutor", "grade", str(folder), LESSON,
                                   "--jobs", "1", "--timeout", "20"], cwd=tmp_path)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)
    assert code == 1, plain
    assert "grading lesson2 (1 at a time)" in plain  # rich's progress bar
    assert re.search(r"! amy\s+lesson2\.ipynb\s+0/5\s+grading took longer than --timeout 20 s", plain), plain
    assert re.search(r"! bob\s+lesson2\.ipynb\s+0/5\s+corrupt notebook", plain), plain
    assert "Traceback" not in plain

    book = read_gradebook(folder, LESSON)
    assert {s: b["score"] for s, b in book.items()} == {"amy": 0, "bob": 0}
    # as nbgrader leaves a submission it could not grade: no autograder score, marked for manual grading
    assert all(grade[0] is None and grade[2] and grade[4] == 0 for grade in book["amy"]["grades"].values())
    assert not (folder / "autograded" / "amy" / LESSON).exists()
    # nothing left running in the course folder: the stuck kernel was stopped with its worker
    import psutil

    left = []
    for process in psutil.process_iter(["pid"]):
        try:
            if str(folder) in process.cwd():
                left.append(process.pid)
        except psutil.Error:
            continue
    assert not left


VANDAL = '''import glob, json, os, shutil
course = os.path.abspath(os.path.join(os.getcwd(), "..", "..", ".."))  # autograded/<student>/<lesson>
attempts = {}
for name, act in [
    ("read another student's notebook", lambda: open(glob.glob(course + "/submitted/*/lesson2/lesson2.ipynb")[0]).read()),
    ("read the gradebook", lambda: open(course + "/gradebook.db", "rb").read()),
    ("read the instructor's source", lambda: open(course + "/source/lesson2/lesson2.ipynb").read()),
    ("overwrite the course config", lambda: open(course + "/nbgrader_config.py", "a").write("# mine\\n")),
    ("delete the canary", lambda: os.remove(course + "/canary.txt")),
    ("write outside", lambda: open(os.path.join(course, "..", "vandal-was-here.txt"), "w").write("x")),
    ("remove the release", lambda: shutil.rmtree(course + "/release")),
]:
    try:
        act()
        attempts[name] = "done"
    except (OSError, IndexError) as exc:
        attempts[name] = type(exc).__name__
open("my-own-notes.txt", "w").write("a file in my own folder is fine\\n")
print(json.dumps(attempts))
'''


@pytest.mark.nbgrader
@pytest.mark.xdist_group("classroom")
def test_a_notebook_cannot_touch_the_course_outside_its_own_folder(tmp_path):
    """nbgrader runs a submission's top-level code in a kernel with the grader's rights; `gradtutor grade`
    starts that kernel under Landlock: it reads and writes only its own autograded folder, and the
    answers beside the vandalism still earn their points."""
    from gradtutor.isolation import landlock

    assert landlock.abi_version() >= 1, "this machine's kernel has no Landlock: the kernels cannot be fenced"
    folder = make_course(tmp_path / "course", [LESSON])
    (folder / "canary.txt").write_text("still here\n")
    vandal = _correct(folder)
    vandal.cells.insert(1, nbformat.v4.new_code_cell(VANDAL))
    _submit(folder, "vandal", vandal)
    _submit(folder, "victim", _correct(folder))
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and "autograded" not in p.parts}

    done = gradtutor("grade", str(folder), LESSON, "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    book = read_gradebook(folder, LESSON)
    assert {s: b["score"] for s, b in book.items()} == {"vandal": 5, "victim": 5}, done.stdout
    after = {p: p.read_bytes() for p in before if p.exists()}
    assert [str(p) for p in before if before[p] != after.get(p) and p.name != "gradebook.db"] == []
    assert not (tmp_path / "vandal-was-here.txt").exists()
    graded = nbformat.read(folder / "autograded" / "vandal" / LESSON / f"{LESSON}.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for o in graded.cells[1].outputs)
    attempts = json.loads(printed.strip().splitlines()[-1])
    assert attempts == {"read another student's notebook": "PermissionError", "read the gradebook": "PermissionError",
                        "read the instructor's source": "PermissionError", "overwrite the course config": "PermissionError",
                        "delete the canary": "PermissionError", "write outside": "PermissionError",
                        "remove the release": "PermissionError"}, printed
    assert (folder / "autograded" / "vandal" / LESSON / "my-own-notes.txt").is_file()
