"""Does every kind of outcome get its own state and a one-line message naming the function?"""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from gradtutor.course import manifest as course

LESSON = course.load().lesson("lesson2")
FIRST = LESSON.exercises[0]


def _code(body: str) -> str:
    return f"def {FIRST.function}(*args):\n" + "".join(f"    {line}\n" for line in body.splitlines())


@pytest.mark.tf
def test_is_not_implemented_not_attempted(grade):
    result = grade("lesson2", FIRST.id, _code("raise NotImplementedError()"))
    assert result.status == "not_attempted" and result.points == 0


@pytest.mark.tf
def test_does_an_error_name_the_learners_line(grade):
    result = grade("lesson2", FIRST.id, _code("x = 1\nreturn undefined_name"))
    assert result.status == "error"
    assert "raised NameError" in result.message and "line 7" in result.message and "return undefined_name" in result.message
    assert "\n" not in result.message


@pytest.mark.tf
def test_does_a_hang_time_out_and_the_checker_survive(checker, grade):
    # the worker warm first (TensorFlow imported, the lesson loaded): what is timed is the hang, its end and the restart
    assert grade("lesson2", FIRST.id, _code("raise NotImplementedError()")).status == "not_attempted"
    saved = checker.timeout
    checker.timeout = 2
    try:
        started = time.monotonic()
        result = grade("lesson2", FIRST.id, _code("while True:\n    pass"))
        assert result.status == "timeout" and "2 s" in result.message
        assert time.monotonic() - started < 2 + 5
    finally:
        checker.timeout = saved
    assert grade("lesson2", FIRST.id, _code("raise NotImplementedError()")).status == "not_attempted"


@pytest.mark.tf
def test_is_ending_the_process_an_error_not_a_crash(grade):
    result = grade("lesson2", FIRST.id, "import os\n" + _code("os._exit(0)"))
    assert result.status == "error" and "ended the process" in result.message
    result = grade("lesson2", FIRST.id, "import sys\n" + _code("sys.exit(0)"))
    assert result.status == "error" and "SystemExit" in result.message


@pytest.mark.tf
def test_is_printed_output_kept_but_never_a_verdict(grade):
    result = grade("lesson2", FIRST.id, _code("print('PASS')\nreturn None"))
    assert result.status == "fail" and "PASS" in result.output


@pytest.mark.tf
def test_is_a_missing_function_bad_input(checker, tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    result = checker.check_file(LESSON, path)
    assert result.exit_code == 2
    assert all(e.status == "error" and "is not defined in empty.py" in e.message for e in result.exercises)


@pytest.mark.tf
def test_is_top_level_work_in_cells_skipped(grade):
    # A training loop at top level must not run: only definitions are loaded.
    result = grade("lesson2", FIRST.id, "while True:\n    pass\n\n" + _code("raise NotImplementedError()"))
    assert result.status == "not_attempted"


@pytest.mark.unit
def test_does_the_parent_stay_free_of_tensorflow():
    code = ("import sys; from gradtutor import cli; from gradtutor.checking import checker, verdict, compare, diagnose; "
            "from gradtutor.learner import verdict_view, notebook, workspace, watch; "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.tf
def test_are_solution_verdicts_the_same_on_a_second_check(checker):
    first = checker.check_file(LESSON, LESSON.source_notebook())
    second = checker.check_file(LESSON, LESSON.source_notebook())
    assert [e.to_json() for e in first.exercises] == [e.to_json() for e in second.exercises]


@pytest.mark.tf
@pytest.mark.parametrize("seeds", ["visible", "hidden"])
def test_can_seed_sets_be_chosen(checker, seeds):
    result = checker.check_file(LESSON, LESSON.source_notebook(), [FIRST], seeds)
    assert result.exercises[0].status == "pass" and "2 inputs" in result.exercises[0].message


# A failure on a hidden input must not tell the learner the answer to hard-code: the engine words it
# without the reference's values, shape or comparison table, in every place that shows it.
WATCH = course.load().lesson("lesson1").exercise("watch_constant")
HIDDEN_WRONG = {
    "values": "def grad_of_cube(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
              "        y = tf.reduce_sum(x ** 2)\n    return tape.gradient(y, x)\n",
    "shape": "def grad_of_cube(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
             "        y = tf.reduce_sum(x ** 3)\n    return tf.reshape(tape.gradient(y, x), [-1])[:1]\n",
    "zeros": "def grad_of_cube(x):\n    return tf.zeros_like(x)\n",
}


@pytest.mark.tf
@pytest.mark.parametrize("symptom", sorted(HIDDEN_WRONG))
def test_does_a_hidden_input_failure_quote_no_reference_values(grade, symptom):
    import re

    visible = grade("lesson1", WATCH.id, HIDDEN_WRONG[symptom], seeds="visible")
    hidden = grade("lesson1", WATCH.id, HIDDEN_WRONG[symptom], seeds="hidden")
    assert visible.status == hidden.status == "fail"
    assert visible.reports and not visible.hidden  # the visible inputs' failure keeps its numbers and table
    assert hidden.hidden and hidden.reports == [], "no comparison table for a hidden input"
    assert "expected" not in hidden.message and "reaches" not in hidden.message
    assert not re.search(r"\d\.\d", hidden.message), hidden.message
    assert "does it hard-code values or shapes?" in hidden.message


@pytest.mark.tf
def test_is_an_answer_right_only_on_the_visible_inputs_told_so(grade):
    """It recognises the inputs the learner printed (by their sum) and is wrong on any other."""
    from gradtutor.course.references import VISIBLE_SEEDS, exercises_of

    build = exercises_of("lesson1")[WATCH.id].build
    seen = sorted(round(float(build(seed)["x"].numpy().sum()), 3) for seed in VISIBLE_SEEDS)
    code = ("def grad_of_cube(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
            "        y = tf.reduce_sum(x ** 3)\n"
            f"    if round(float(tf.reduce_sum(x)), 3) in {seen!r}:\n"
            "        return tape.gradient(y, x)\n    return tf.zeros_like(x)\n")
    assert grade("lesson1", WATCH.id, code, seeds="visible").status == "pass"
    result = grade("lesson1", WATCH.id, code, seeds="all")
    assert result.status == "fail" and result.hidden and result.reports == []
    assert "right on the visible inputs, wrong on a hidden one: does it hard-code values or shapes?" in result.message
    assert "reaches" not in result.message, "the zeros symptom quotes no reference maximum on a hidden input"


# --------------------------------------------------------------------------- what the learner ran, and what it did

CUBE = '''
def _impl(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return tape.gradient(y, x)
'''


@pytest.mark.tf
@pytest.mark.parametrize("wrapper", ["grad_of_cube = tf.function(_impl)\n", "grad_of_cube = lambda x: _impl(x)\n",
                                     "fast = tf.function(_impl)\n\ndef grad_of_cube(x):\n    return fast(x)\n"])
def test_does_a_top_level_wrapper_or_lambda_work_as_in_the_notebook(grade, wrapper):
    result = grade("lesson1", "watch_constant", CUBE + wrapper)
    assert result.status == "pass", result.message
    assert "AutoGraph" not in result.output and "sandbox" not in result.output


@pytest.mark.tf
def test_is_a_statement_that_failed_to_load_reported_with_its_line(grade):
    code = CUBE + "helper = tf.function(undefined_thing)\n\ndef grad_of_cube(x):\n    return helper(x)\n"
    result = grade("lesson1", "watch_constant", code)
    assert result.status == "error" and result.cause.value == "load-failed"
    assert "needs helper" in result.message and "line" in result.message


@pytest.mark.tf
def test_is_an_answer_that_changes_its_model_failed_for_it(grade):
    code = '''
def first_class_gradient(model, inp):
    model.layers[-1].activation = keras.activations.linear
    with tf.GradientTape() as tape:
        first = model(inp, training=False)[:, 0]
    return tape.gradient(first, inp)
'''
    result = grade("lesson2", FIRST.id, code)
    assert result.status == "fail" and result.cause.value == "inputs-modified" and "the model" in result.message


@pytest.mark.tf
def test_are_prints_shown_for_the_visible_inputs_only(grade):
    result = grade("lesson1", "watch_constant", CUBE + "def grad_of_cube(x):\n    print('SIZE', x.shape[0])\n"
                   "    return _impl(x)\n")
    assert result.status == "pass" and result.output.count("SIZE") == 2  # two visible seeds, no hidden one


@pytest.mark.tf
def test_does_a_syntax_error_in_one_exercise_leave_the_others_checked(checker, tmp_path):
    import json

    sources = ["import tensorflow as tf", CUBE + "grad_of_cube = _impl\n", "def grad_from_numpy(x):\n    return (x\n"]
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None} for s in sources]
    path = tmp_path / "mixed.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    lesson1 = course.load().lesson("lesson1")
    result = checker.check_file(lesson1, path, [lesson1.exercise("watch_constant"), lesson1.exercise("numpy_input")])
    statuses = {e.id: e.status.value for e in result.exercises}
    assert statuses == {"watch_constant": "pass", "numpy_input": "error"} and result.exit_code == 1
    assert "code cell 3" in result.exercises[1].message
