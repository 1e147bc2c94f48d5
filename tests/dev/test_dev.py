"""Does `gradtutor dev check` pass on the course, and catch a broken copy of it in one line?

Each broken case is a copy of the course (package, notebooks, known answers) in
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


REPO = Path(__file__).resolve().parents[2]
COPIED = ("gradtutor", "lessons", "solutions", "tests/answers")


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
    manifest = root / "gradtutor" / "course" / "course.toml"
    manifest.write_text(manifest.read_text().replace('when = "none"', 'when = "nothing"', 1))
    done = dev(root, "check", "--lesson", "lesson1")
    assert done.returncode == 1
    [line] = problems(done)
    assert "course.toml" in line and "lesson lesson1 exercise watch_constant" in line and "'when'" in line, line


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


@pytest.mark.nbgrader
def test_a_new_lesson_passes_dev_check_once_generated(tmp_path):
    pytest.importorskip("nbgrader")
    root = copy_course(tmp_path)
    made = dev(root, "new-lesson", "persistent-tapes", "--title", "Persistent tapes")
    assert made.returncode == 0, made.stderr
    lesson_id = f"lesson{sum(1 for p in (root / 'solutions').iterdir() if p.is_dir())}"
    for path in (f"solutions/{lesson_id}/{lesson_id}.ipynb", f"gradtutor/course/references/{lesson_id}.py",
                 f"tests/answers/{lesson_id}.toml"):
        assert f"wrote {path}" in made.stdout
    released = subprocess.run([sys.executable, "-m", "gradtutor.dev.release", lesson_id], cwd=root,
                              env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True)
    assert released.returncode == 0, released.stderr
    done = dev(root, "check", "--lesson", "persistent-tapes")
    assert done.returncode == 0, done.stdout + done.stderr
    again = dev(root, "new-lesson", "persistent-tapes")
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "choose another" in again.stderr


@pytest.mark.tf
def test_new_lesson_never_overwrites(tmp_path):
    root = copy_course(tmp_path)
    manifest = (root / "gradtutor" / "course" / "course.toml").read_text()
    number = manifest.count("[[lessons]]") + 1
    (root / "tests" / "answers" / f"lesson{number}.toml").write_text("# mine\n")
    done = dev(root, "new-lesson", "persistent-tapes")
    assert done.returncode == 2 and "already exists" in done.stderr and done.stderr.count("\n") == 1
    assert (root / "gradtutor" / "course" / "course.toml").read_text() == manifest
    assert not (root / "solutions" / f"lesson{number}").exists()
    assert (root / "tests" / "answers" / f"lesson{number}.toml").read_text() == "# mine\n"


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
