"""Is a course's hidden-input secret written once, read back exactly, and turned into hidden seeds
no one can read in the package? And outside a course, are there no hidden inputs at all?"""
from __future__ import annotations

import re

import pytest

from gradtutor.course import secret as course_secret
from gradtutor.classroom.grading.course_folder import init_course
from gradtutor.errors import CourseSecretError
from gradtutor.course.seeds import PUBLIC_HIDDEN_SEEDS, VISIBLE_SEEDS, HiddenInputs, course_seeds, is_hidden
from tests.support.classroom import gradtutor

pytestmark = pytest.mark.unit

SECRET = "0123456789abcdef" * 2


def test_do_two_secrets_give_different_hidden_seeds_and_one_secret_the_same():
    first, again, other = course_seeds(SECRET, "lesson1"), course_seeds(SECRET, "lesson1"), course_seeds("f" * 32, "lesson1")
    assert first == again and len(first) == 2 and len(set(first)) == 2
    assert not set(first) & set(other)
    assert course_seeds(SECRET, "lesson1") != course_seeds(SECRET, "lesson2"), "each lesson its own"
    assert not set(first) & set(VISIBLE_SEEDS + PUBLIC_HIDDEN_SEEDS)
    assert all(is_hidden(seed) and 0 <= seed < 2**31 for seed in first)


def test_does_classroom_init_write_a_secret_once_and_never_replace_it(tmp_path):
    folder = tmp_path / "course"
    made = dict((path.name, what) for path, what in init_course(folder))
    assert made["nbgrader_config.py"] == "wrote (with a secret)"
    config = folder / "nbgrader_config.py"
    secret = course_secret.read_secret(config)
    assert re.fullmatch(r"[0-9a-f]{32}", secret)
    compile(config.read_text(), str(config), "exec")
    again = dict((path.name, what) for path, what in init_course(folder))
    assert again["nbgrader_config.py"] == "kept (exists)" and course_secret.read_secret(config) == secret
    assert course_secret.read_secret(init_course(tmp_path / "other")[0][0]) != secret, "two courses, two secrets"


def test_does_init_add_a_secret_to_a_course_made_before_there_were_secrets(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    config = folder / "nbgrader_config.py"
    config.write_text("c = get_config()  # noqa\nc.CourseDirectory.course_id = 'old'")
    made = dict((path.name, what) for path, what in init_course(folder))
    assert made["nbgrader_config.py"] == "kept, secret added"
    assert config.read_text().startswith("c = get_config()  # noqa\nc.CourseDirectory.course_id = 'old'\n")
    assert course_secret.require_secret(folder) == course_secret.read_secret(config)


@pytest.mark.parametrize("line", ["c.Gradtutor.hidden_inputs_secret = 'abc'", "c.Gradtutor.hidden_inputs_secret = 42",
                                  "c.Gradtutor.hidden_inputs_secret = SECRET", "c.Gradtutor.hidden_inputs_secret = ("])
def test_is_a_malformed_secret_one_clear_line(tmp_path, line):
    config = tmp_path / "nbgrader_config.py"
    config.write_text(f"c = get_config()  # noqa\n{line}\n")
    with pytest.raises(CourseSecretError) as raised:
        course_secret.read_secret(config)
    message = str(raised.value)
    assert "\n" not in message and str(config) in message
    assert "classroom init" in message or "valid Python" in message


def test_does_grading_a_course_without_a_secret_say_how_to_add_one(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text("c = get_config()  # noqa\n")
    done = gradtutor("grade", str(folder), "lesson1", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "hidden_inputs_secret" in lines[0] and "classroom init" in lines[0], lines


def test_does_a_judge_find_its_course_only_from_inside_it(tmp_path, monkeypatch):
    folder = tmp_path / "course"
    init_course(folder)
    inside = folder / "autograded" / "student" / "lesson1"
    inside.mkdir(parents=True)
    secret, config = course_secret.find_secret(inside)
    assert secret == course_secret.read_secret(folder / "nbgrader_config.py") and config == folder / "nbgrader_config.py"
    assert course_secret.find_secret(tmp_path) is None
    plain = tmp_path / "plain"  # an nbgrader folder that is not a gradtutor course (this repository's own)
    plain.mkdir()
    (plain / "nbgrader_config.py").write_text("c = get_config()  # noqa\n")
    assert course_secret.find_secret(plain) is None
    # what a judge started by a sandboxed kernel meets (Landlock; the tests run as root, so not chmod)
    read = course_secret.Path.read_text

    def denied(path, *args, **kwargs):
        if path.name == "nbgrader_config.py":
            raise PermissionError(13, "Permission denied")
        return read(path, *args, **kwargs)

    monkeypatch.setattr(course_secret.Path, "read_text", denied)
    assert course_secret.find_secret(inside) is None


def test_outside_a_course_are_there_no_hidden_inputs():
    outside = HiddenInputs.default()
    assert not outside.available
    assert outside.seeds_for("all", "lesson1") == VISIBLE_SEEDS and outside.visible_only("all")
    assert not outside.visible_only("visible")
    course = HiddenInputs(secret=SECRET)
    assert course.seeds_for("all", "lesson1") == VISIBLE_SEEDS + course_seeds(SECRET, "lesson1")
    assert course.seeds_for("hidden", "lesson1") == course_seeds(SECRET, "lesson1") and not course.visible_only("all")
    assert HiddenInputs(public=True).seeds_for("hidden", "lesson1") == PUBLIC_HIDDEN_SEEDS  # nbgrader, no secret
    assert course_seeds(SECRET, "lesson1", 200) == HiddenInputs(secret=SECRET, count=200).seeds("lesson1")
    assert len(set(course_seeds(SECRET, "lesson1", 200))) == 200  # the sweep's: as many as asked, all different
