"""Hidden inputs with and without a course: a learner's own checks run the visible inputs and say so
once; a course's checker runs hidden inputs derived from its secret, which answers hard-coded from
everything in the package cannot match, and which the learner code it runs cannot read."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gradtutor.course import manifest as course
from gradtutor.course import secret as course_secret
from gradtutor.checking.checker import Checker
from gradtutor.classroom.grading.course_folder import init_course
from gradtutor.checking.diagnose import no_hidden_inputs, visible_only
from gradtutor.errors import NoHiddenInputs
from gradtutor.messages import say
from gradtutor.course.seeds import PUBLIC_HIDDEN_SEEDS, VISIBLE_SEEDS, HiddenInputs
from tests.support.classroom import solution_code
from tests.support.hard_coded import hard_coded_code, reference_table

NO_HIDDEN_INPUTS, VISIBLE_ONLY = no_hidden_inputs(), visible_only()  # in English, the language the tests run in

pytestmark = pytest.mark.tf

LESSON = course.load().lesson("lesson1")
EXERCISE = LESSON.exercises[0]
AT_GRADING = say("check.hidden.at_grading", lesson=LESSON.id, exercise=EXERCISE.id)  # a hidden check, outside a course
IMPORTS = "import numpy as np\nimport tensorflow as tf\n\n"


def _learner_env() -> dict:
    """A learner's environment: no grader's judge to ask, and not under nbgrader."""
    env = dict(os.environ)
    env.pop("GRADTUTOR_JUDGE", None)
    env.pop("NBGRADER_EXECUTION", None)
    return env


def _solution_file(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(IMPORTS + solution_code(LESSON, EXERCISE))
    return path


def test_does_gradtutor_check_outside_a_course_say_once_it_checked_the_visible_inputs(tmp_path):
    path = _solution_file(tmp_path)
    command = [sys.executable, "-m", "gradtutor", "check", LESSON.id, EXERCISE.id, "--file", str(path), "--no-daemon"]
    shown = subprocess.run(command, capture_output=True, text=True, env=_learner_env(), cwd=tmp_path, timeout=600)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert " ".join(shown.stdout.split()).count(VISIBLE_ONLY) == 1, shown.stdout
    as_json = subprocess.run(command + ["--json"], capture_output=True, text=True, env=_learner_env(), cwd=tmp_path,
                             timeout=600)
    assert json.loads(as_json.stdout)["visible_only"] is True
    hidden = subprocess.run(command + ["--seeds", "hidden"], capture_output=True, text=True, env=_learner_env(),
                            cwd=tmp_path, timeout=600)
    lines = [line for line in (hidden.stdout + hidden.stderr).splitlines() if line.strip()]
    assert hidden.returncode == 2 and len(lines) == 1 and NO_HIDDEN_INPUTS in " ".join(lines[0].split()), lines


def test_does_check_in_a_learners_own_code_say_it_once_and_leave_hidden_to_the_grader(tmp_path):
    script = _solution_file(tmp_path)
    script.write_text(script.read_text() + (
        "\n\nif __name__ == '__main__':\n    from gradtutor import check\n"
        f"    check({LESSON.id!r}, {EXERCISE.id!r}, {EXERCISE.function})\n"
        f"    check({LESSON.id!r}, {EXERCISE.id!r}, {EXERCISE.function}, seeds='all')\n"
        f"    check({LESSON.id!r}, {EXERCISE.id!r}, {EXERCISE.function}, seeds='hidden')\n"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_learner_env(),
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr  # the hidden check neither raises nor fails
    assert done.stdout.count(f"✓ {LESSON.id} / {EXERCISE.id}") == 2, done.stdout + done.stderr
    assert done.stdout.count(VISIBLE_ONLY) == 1, done.stdout
    assert done.stdout.splitlines()[-1] == AT_GRADING and "Error" not in done.stderr, done.stdout + done.stderr


def test_does_check_take_a_function_the_learner_decorated_with_tf_function(tmp_path):
    """@tf.function (or functools.wraps) around the answer is still the learner's function, not "not a function"."""
    script = tmp_path / "decorated.py"
    script.write_text(IMPORTS + "@tf.function\n" + solution_code(LESSON, EXERCISE) + (
        "\n\nif __name__ == '__main__':\n    from gradtutor import check\n"
        f"    check({LESSON.id!r}, {EXERCISE.id!r}, {EXERCISE.function}, seeds='visible')\n"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_learner_env(),
                          cwd=tmp_path, timeout=600)
    assert done.returncode == 0 and f"✓ {LESSON.id} / {EXERCISE.id}" in done.stdout, done.stdout + done.stderr


def test_outside_a_course_is_a_pass_on_the_visible_inputs_a_pass(tmp_path):
    with Checker(timeout=60) as checker:
        result = checker.check_file(LESSON, _solution_file(tmp_path), [EXERCISE], "all")
        assert result.visible_only and result.exercises[0].status == "pass"
        assert f"on {len(VISIBLE_SEEDS)} inputs" in result.exercises[0].message
        with pytest.raises(NoHiddenInputs):
            checker.check_file(LESSON, _solution_file(tmp_path), [EXERCISE], "hidden")


@pytest.fixture(scope="module")
def course_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secret") / "course"
    init_course(folder)
    return folder


def test_is_an_answer_hard_coded_from_every_input_in_the_package_caught_by_a_course(tmp_path, course_folder):
    secret = course_secret.require_secret(course_folder)
    table = reference_table([LESSON.id], VISIBLE_SEEDS + PUBLIC_HIDDEN_SEEDS)[LESSON.id][EXERCISE.id]
    path = tmp_path / "hard_coded.py"
    path.write_text(IMPORTS + hard_coded_code(EXERCISE, table))  # the visible and the public hidden answers
    with Checker(timeout=60, hidden=HiddenInputs(public=True)) as public:
        assert public.check_file(LESSON, path, [EXERCISE], "all").exercises[0].status == "pass", \
            "the lookup table is right on every input the package holds"
    config = str(course_folder / "nbgrader_config.py")
    with Checker(timeout=60, hidden=HiddenInputs(secret=secret), hide=[config]) as graded:
        assert graded.check_file(LESSON, path, [EXERCISE], "visible").exercises[0].status == "pass"
        hidden = graded.check_file(LESSON, path, [EXERCISE], "hidden").exercises[0]
        assert hidden.status == "fail" and hidden.hidden and "does it hard-code values or shapes?" in hidden.message
        solution = graded.check_file(LESSON, _solution_file(tmp_path), [EXERCISE], "all").exercises[0]
        assert solution.status == "pass" and "on 4 inputs" in solution.message


def test_can_learner_code_the_course_checker_runs_not_read_the_secret(tmp_path, course_folder):
    secret = course_secret.require_secret(course_folder)
    config = str((course_folder / "nbgrader_config.py").resolve())
    snoop = tmp_path / "snoop.py"
    snoop.write_text(IMPORTS + (
        f"def {EXERCISE.function}(*args):\n"
        "    import os\n"
        "    try:\n"
        f"        found = open({config!r}).read()\n"
        "    except OSError as exc:\n"
        "        found = f'[{exc.__class__.__name__}]'\n"
        "    raise ValueError(found + ' ' + ' '.join(f'{k}={v}' for k, v in os.environ.items()))\n"))
    with Checker(timeout=60, hidden=HiddenInputs(secret=secret), hide=[config]) as graded:
        result = graded.check_file(LESSON, snoop, [EXERCISE], "all").exercises[0]
    assert result.status == "error", result.message
    assert "PermissionError" in result.message, result.message[-500:]  # it tried, and the sandbox said no
    assert secret not in result.message and secret not in result.output


def test_does_the_judge_of_a_plain_nbgrader_kernel_use_the_course_it_runs_in(tmp_path, course_folder):
    """`nbgrader autograde` alone runs each kernel, and so its judge, in the student's folder of the course."""
    inside = course_folder / "autograded" / "student" / LESSON.id
    inside.mkdir(parents=True)
    request = {"lesson": LESSON.id, "exercise": EXERCISE.id, "function": EXERCISE.function,
               "cells": [IMPORTS + solution_code(LESSON, EXERCISE)]}
    lines = "".join(json.dumps(dict(request, seeds=s)) + "\n" for s in ("all", "hidden"))
    replies = {}
    for where in (inside, tmp_path):
        done = subprocess.run([sys.executable, "-m", "gradtutor.learner.judge"], input=lines, capture_output=True, text=True,
                              env=_learner_env(), cwd=where, timeout=600)
        replies[where] = [json.loads(line) for line in done.stdout.splitlines()]
    in_course, outside = replies[inside], replies[tmp_path]
    assert [r.get("status") for r in in_course] == ["pass", "pass"] and not in_course[0]["visible_only"], in_course
    assert "on 4 inputs" in in_course[0]["message"] and "note" not in in_course[1]
    assert outside[0]["status"] == "pass" and outside[0]["visible_only"] and outside[1] == {"skipped": AT_GRADING}
    # nbgrader (NBGRADER_EXECUTION) in a course with no secret: the public hidden inputs, and said so
    plain = subprocess.run([sys.executable, "-m", "gradtutor.learner.judge"], input=lines, capture_output=True, text=True,
                           env=dict(_learner_env(), NBGRADER_EXECUTION="autograde"), cwd=tmp_path, timeout=600)
    graded = [json.loads(line) for line in plain.stdout.splitlines()]
    assert [r.get("status") for r in graded] == ["pass", "pass"] and "on 4 inputs" in graded[0]["message"], graded
    assert graded[1]["note"] == say("check.hidden.public") and not graded[1]["visible_only"]


def test_does_gradtutor_check_in_a_course_folder_use_its_secret(tmp_path, course_folder):
    """The instructor's one-off check of a submission on the course's hidden inputs, from the terminal."""
    command = [sys.executable, "-m", "gradtutor", "check", LESSON.id, EXERCISE.id, "--file",
               str(_solution_file(tmp_path)), "--no-daemon", "--seeds", "hidden", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, env=_learner_env(), cwd=course_folder, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    config = (course_folder / course_secret.CONFIG).resolve()
    assert say("cli.check.course_secret", config=config) in done.stderr, done.stderr  # the JSON stays alone on stdout
    checked = json.loads(done.stdout)
    assert not checked["visible_only"] and "on 2 inputs" in checked["exercises"][0]["message"], checked
