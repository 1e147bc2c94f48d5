"""Does `gradtutor dev check` pass on the course, and catch a broken copy of it in one line?

Each broken case is a copy of the course (package with its lessons' folders, notebooks) in
tmp, checked by the copy's own gradtutor, so the repository is never touched.
Only the lesson that was broken is checked, to keep these tests short.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradtutor import dev as dev_verbs
from gradtutor.course import manifest as course
from tests.support import hostile


REPO = Path(__file__).resolve().parents[2]
COPIED = ("gradtutor", "lessons", "solutions")


def copy_course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    for part in COPIED:
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "_course"))
    return root


def dev(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`python -m gradtutor.dev ARGS` with the gradtutor of `root` imported, so it checks that course."""
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, "-m", "gradtutor.dev", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def problems(done: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in done.stderr, done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith("FAIL")]


def edit_cell(notebook: Path, grade_id: str, change) -> None:
    data = json.loads(notebook.read_text())
    cell = next(c for c in data["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    cell["source"] = change("".join(cell["source"]))
    notebook.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


@pytest.mark.tf
def test_dev_check_passes_on_the_course():
    done = dev(REPO, "check", "--lesson", "lesson1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert problems(done) == []
    assert done.stdout.splitlines()[-1] == "dev check: all good"


@pytest.mark.tf
def test_a_misspelt_when_is_one_line_naming_the_manifest_lesson_and_key(tmp_path):
    root = copy_course(tmp_path)
    manifest = root / "gradtutor" / "course" / "lessons" / "lesson1" / "lesson.toml"
    manifest.write_text(manifest.read_text().replace('when = "none"', 'when = "nothing"', 1))
    done = dev(root, "check", "--lesson", "lesson1")
    assert done.returncode == 1
    [line] = problems(done)
    assert f"{manifest}: lesson lesson1 exercise watch_constant" in line and "'when'" in line, line


@pytest.mark.tf
def test_a_failing_solution_is_one_line(tmp_path):
    root = copy_course(tmp_path)
    edit_cell(root / "solutions/lesson1/lesson1.ipynb", "watch_constant", 
              lambda s: s.replace("        y = tf.reduce_sum(x ** 3)", "        y = tf.reduce_sum(x ** 2)"))
    done = dev(root, "check", "--lesson", "lesson1")
    assert done.returncode == 1
    [line] = problems(done)
    assert "lesson1 watch_constant: the solution" in line and "not pass" in line, line


@pytest.mark.tf
def test_a_starter_that_passes_is_caught(tmp_path):
    root = copy_course(tmp_path)
    solution = json.loads((root / "solutions/lesson1/lesson1.ipynb").read_text())
    answer = next(c for c in solution["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "numpy_input")
    edit_cell(root / "lessons/lesson1/lesson1.ipynb", "numpy_input", lambda s: "".join(answer["source"]))
    done = dev(root, "check", "--lesson", "lesson1")
    assert done.returncode == 1
    found = problems(done)
    assert any("lesson1 numpy_input: the starter in lessons/lesson1/lesson1.ipynb passes once edited" in line
               for line in found), found


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and "test-output" not in p.parts}


def translate_title_and_summary(root: Path, lesson_id: str) -> None:
    """What an author does after `dev new-lesson`: write the two texts only they can translate, in the
    lesson's zh_CN.toml, and the Chinese notebook's heading that shows the title."""
    texts = root / "gradtutor" / "course" / "lessons" / lesson_id / "zh_CN.toml"
    text = texts.read_text(encoding="utf-8").replace('text = ""', 'text = "持久的梯度带"', 1)
    texts.write_text(text.replace('text = ""', 'text = "一句话：本课讲的陷阱，以及它对梯度造成的影响。"', 1), encoding="utf-8")
    notebook = root / "solutions" / lesson_id / f"{lesson_id}.zh_CN.ipynb"
    notebook.write_text(notebook.read_text(encoding="utf-8").replace("课——Persistent tapes", "课——持久的梯度带"),
                        encoding="utf-8")


@pytest.mark.nbgrader
def test_a_new_lesson_lives_in_its_folder_and_passes_dev_check_once_translated(tmp_path):
    pytest.importorskip("nbgrader")
    root = copy_course(tmp_path)
    for part in ("tests", "pyproject.toml"):  # to run the structural tests on the copy
        (shutil.copytree if (REPO / part).is_dir() else shutil.copyfile)(REPO / part, root / part)
    before = files_of(root)
    made = dev(root, "new-lesson", "persistent-tapes", "--title", "Persistent tapes")
    assert made.returncode == 0, made.stderr
    lesson_id = f"lesson{sum(1 for p in (root / 'solutions').iterdir() if p.is_dir())}"
    folder = f"gradtutor/course/lessons/{lesson_id}"
    notebooks = [f"solutions/{lesson_id}/{lesson_id}.ipynb", f"solutions/{lesson_id}/{lesson_id}.zh_CN.ipynb"]
    for path in (f"{folder}/lesson.toml", f"{folder}/zh_CN.toml", f"{folder}/reference.py", f"{folder}/answers.toml",
                 f"{folder}/test_claims_{lesson_id}.py", *notebooks):
        assert f"wrote {path}" in made.stdout
    untranslated = dev(root, "check", "--lesson", lesson_id, "--quick")  # a text left to translate: nothing runs
    assert any(f"{lesson_id}.title" in line and "zh_CN" in line for line in problems(untranslated)), untranslated.stdout
    translate_title_and_summary(root, lesson_id)
    released = subprocess.run([sys.executable, "-m", "gradtutor.dev.release", lesson_id], cwd=root,
                              env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True)
    assert released.returncode == 0, released.stderr
    changed = {path for path, data in files_of(root).items() if before.get(path) != data}
    outside = {p for p in changed if not p.startswith((f"{folder}/", f"lessons/{lesson_id}/")) and p not in notebooks}
    assert outside == {"gradtutor/course/course.toml"}, "only the scaffold lists the lesson outside its folder"
    done = dev(root, "check", "--lesson", "persistent-tapes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"skip {lesson_id}: 1 exercise(s); a finished lesson has at least 3" in done.stdout
    structural = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist", "-m", "unit",
         "tests/course/test_course.py", "tests/course/test_course_schema.py", "tests/ground/test_messages_course.py",
         "tests/learner/test_notebooks_zh.py", "tests/project/test_package.py",
         "-k", "not fully_described"],  # a finished lesson's three exercises: dev check says so as a skip line
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=600)
    assert structural.returncode == 0, structural.stdout[-3000:] + structural.stderr[-2000:]
    assert f"[{lesson_id}]" in structural.stdout, "the structural tests ran on the new lesson too"
    attacked = subprocess.run(  # the forgeries every lesson gets go for its answers: they reach them, and fail
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist",
         "tests/isolation/test_hostile.py", "tests/isolation/test_hostile_aim.py",
         "-k", f"{lesson_id} or big_and_spread or generated_forgeries_return"],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=900)
    assert attacked.returncode == 0, attacked.stdout[-3000:] + attacked.stderr[-2000:]
    assert attacked.stdout.count(f"[{lesson_id}-") == len(hostile.FORGERY_ROADS), attacked.stdout[-3000:]
    again = dev(root, "new-lesson", "persistent-tapes")
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "choose another" in again.stderr


@pytest.mark.tf
def test_new_lesson_never_overwrites(tmp_path):
    root = copy_course(tmp_path)
    manifest = (root / "gradtutor" / "course" / "course.toml").read_text()
    number = len(course.load().lessons) + 1
    answers = root / "gradtutor" / "course" / "lessons" / f"lesson{number}" / "answers.toml"
    answers.parent.mkdir()
    answers.write_text("# mine\n")
    done = dev(root, "new-lesson", "persistent-tapes")
    assert done.returncode == 2 and "already exists" in done.stderr and done.stderr.count("\n") == 1
    assert (root / "gradtutor" / "course" / "course.toml").read_text() == manifest
    assert not (root / "solutions" / f"lesson{number}").exists()
    assert sorted(p.name for p in answers.parent.iterdir()) == ["answers.toml"] and answers.read_text() == "# mine\n"


@pytest.mark.tf
def test_add_verbs_registers_check_and_new_lesson():
    parser = argparse.ArgumentParser(prog="gradtutor")
    dev_verbs.add_verbs(parser.add_subparsers(dest="verb"))
    args = parser.parse_args(["dev", "check", "--lesson", "1", "--lesson", "softmax"])
    assert args.func is dev_verbs.cmd_check and args.lesson == ["1", "softmax"] and args.timeout == dev_verbs.TIMEOUT
    args = parser.parse_args(["dev", "new-lesson", "persistent-tapes", "--title", "Persistent tapes"])
    assert args.func is dev_verbs.cmd_new_lesson and (args.slug, args.title) == ("persistent-tapes", "Persistent tapes")
    with pytest.raises(dev_verbs.UsageError, match="choose a dev command"):
        parser.parse_args(["dev"]).func(None)


@pytest.mark.unit  # --quick: nothing runs TensorFlow
def test_a_demo_cell_that_defines_an_answers_name_is_one_line_and_the_reading_time_is_shown(tmp_path):
    """Lesson 7's case on a copy of lesson 1: a demo cell defining the exercise's function replaces the answer."""
    import random

    root = copy_course(tmp_path)
    lesson = course.load().lesson("lesson1")
    exercise = random.Random().choice(lesson.exercises)
    notebook = root / "solutions" / "lesson1" / "lesson1.ipynb"
    data = json.loads(notebook.read_text())
    answer = next(i for i, c in enumerate(data["cells"])
                  if c["metadata"].get("nbgrader", {}).get("grade_id") == exercise.id)
    demo = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": f"def {exercise.function}(x):\n    return x  # a demo of the same name\n"}
    where = random.Random().choice([answer, answer + 2])  # before the answer or after its check: both replace it
    data["cells"].insert(where, demo)
    notebook.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    done = dev(root, "check", "--lesson", "lesson1", "--quick")  # a notebook's text: nothing needs to run
    assert done.returncode == 1
    shared = [line for line in problems(done) if "replaces the learner's answer" in line]
    answer_number = answer + 1 + (where <= answer)  # cells counted from 1, the inserted one too
    assert shared == [f"FAIL lesson1: solutions/lesson1/lesson1.ipynb cell {where + 1} defines {exercise.function}, "
                      f"which the answer in cell {answer_number} defines: running it after the answer replaces the "
                      "learner's answer — rename it in that cell"], problems(done)
    timed = [line for line in done.stdout.splitlines() if " minutes (" in line]
    assert [line.split(" (")[1].split(")")[0] for line in timed] == ["en", "zh_CN"], done.stdout


@pytest.mark.unit  # --quick: nothing runs TensorFlow
def test_a_lesson_too_long_to_read_in_one_language_fails_dev_check_in_one_line(tmp_path):
    """A copy of lesson 1 whose notebook in a drawn language gets a drawn number of minutes more prose."""
    import random

    from gradtutor import messages
    from gradtutor.dev.notebook_lint import reading_time

    draw = random.Random()
    root = copy_course(tmp_path)
    lang = draw.choice(messages.LANGUAGES)
    notebook = root / "solutions" / "lesson1" / course.load().lesson("lesson1").source_notebook(lang).name
    data = json.loads(notebook.read_text())
    minutes = reading_time.MAX_MINUTES + draw.uniform(0.5, 10)  # the padding alone is over the limit
    text = (" ".join(["gradient"] * round(minutes * reading_time.WORDS_PER_MINUTE)) if lang == messages.DEFAULT
            else "梯度" * round(minutes * reading_time.CHARACTERS_PER_MINUTE / 2))
    data["cells"].insert(draw.randrange(len(data["cells"]) + 1),
                         {"cell_type": "markdown", "id": "padding", "metadata": {}, "source": text})
    notebook.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    done = dev(root, "check", "--lesson", "lesson1", "--quick")  # a notebook's text: nothing needs to run
    assert done.returncode == 1
    too_long = [line for line in problems(done) if "minutes to read" in line]
    assert len(too_long) == 1 and too_long[0].startswith(
        f"FAIL lesson1: solutions/lesson1/{notebook.name} ({lang}) takes "), problems(done)
    assert too_long[0].endswith("— trim its prose") and f"more than {reading_time.MAX_MINUTES} (" in too_long[0]
    took = float(too_long[0].split(" takes ")[1].split(" minutes")[0])
    assert took > minutes  # the lesson's own prose and the padding
