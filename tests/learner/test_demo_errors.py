"""Do the lessons' failing-on-purpose cells show their error in short, never a traceback?

The messages below are what TensorFlow 2.21 / Keras 3 raise in the lessons' own demonstration cells
(recorded from those cells); the claims tests check that TensorFlow still raises them.
"""
from __future__ import annotations

import json
import random

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.learner.demo import expect_error, in_short

pytestmark = pytest.mark.unit

# lesson 7, section 5: enable_check_numerics() on the unsafe masked log (the lines the prose reads out)
CHECK_NUMERICS = (
    "{{function_node __wrapped__CheckNumericsV2_device_/job:localhost/replica:0/task:0/device:CPU:0}} \n\n"
    '!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!\n'
    "  dtype: <dtype: 'float32'>\n  shape: (4,)\n  # of -Inf elements: 1\n  # of +NaN elements: 1\n\n"
    "  Input tensor: tf.Tensor([-2.   0.   0.5  3. ], shape=(4,), dtype=float32)\n\n"
    " : Tensor had -Inf and NaN values [Op:CheckNumericsV2] name: ")
# lesson 6, section 3: a weight made in call() (Keras colours its middle line for a terminal)
KERAS_CALL = ("Exception encountered when calling WeightInCall.call().\n\n\x1b[1mYou cannot add new elements of "
              "state (variables or sub-layers) to a layer that is already built.\x1b[0m\n\n"
              "Arguments received by WeightInCall.call():\n  • x=tf.Tensor(shape=(2, 3), dtype=float32)")


class InvalidArgumentError(Exception):
    """Named as TensorFlow's is: the short form shows the class's own name."""


def test_a_tensorflow_message_loses_its_wrapping_and_keeps_what_the_lesson_reads():
    shown = in_short(InvalidArgumentError(CHECK_NUMERICS))
    lines = shown.splitlines()
    assert lines[0] == 'InvalidArgumentError: !!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" ' \
                       "(# of outputs: 1) !!!"
    assert "  # of -Inf elements: 1" in lines and "  # of +NaN elements: 1" in lines
    assert lines[-1] == " : Tensor had -Inf and NaN values [Op:CheckNumericsV2]"
    assert "function_node" not in shown and "" not in lines


def test_keras_colour_codes_are_dropped():
    shown = in_short(ValueError(KERAS_CALL))
    assert "\x1b" not in shown and "You cannot add new elements of state" in shown
    assert shown.startswith("ValueError: Exception encountered when calling WeightInCall.call().")


def test_any_one_line_message_is_shown_as_the_last_line_of_a_traceback():
    draw = random.Random()
    for _ in range(50):
        words = " ".join("".join(draw.choices("abcxyz_.'()[]:", k=draw.randint(1, 9))) for _ in range(draw.randint(1, 12)))
        error = draw.choice([ValueError, TypeError, RuntimeError, LookupError, AttributeError])(words)
        assert in_short(error) == f"{type(error).__name__}: {words.strip()}"


def test_the_block_that_raises_prints_its_error_and_the_cell_goes_on(capsys):
    with expect_error():
        raise LookupError("gradient registry has no entry for: DenseBincount")
    assert capsys.readouterr().out == "LookupError: gradient registry has no entry for: DenseBincount\n"


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_a_block_that_does_not_raise_is_a_lesson_out_of_date(lang, monkeypatch):
    monkeypatch.setenv("GRADTUTOR_LANG", lang)
    with pytest.raises(AssertionError) as caught:
        with expect_error():
            pass
    assert str(caught.value) == messages.say("lessons.demo.did_not_raise", lang)


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_no_lesson_cell_fails_with_a_traceback(lang):
    """A cell that fails on purpose uses expect_error(); a raises-exception tag would show the whole traceback."""
    for lesson in course.load().lessons:
        notebook = json.loads(lesson.source_notebook(lang).read_text())
        tagged = [cell.get("id") for cell in notebook["cells"]
                  if "raises-exception" in cell.get("metadata", {}).get("tags", [])]
        assert tagged == [], f"{lesson.source_notebook(lang)}: cells {tagged} raise; wrap the failing lines in " \
                             "`with expect_error():`"
