"""`expect_error()`: a lesson's demonstration that fails on purpose shows the error, not a traceback.

A lesson shows what TensorFlow says when a gradient cannot be taken (a numpy array watched, a tape
used twice, an op with no gradient). Raised in a cell, that message sits under 40-100 lines of
TensorFlow's and Keras's frames; printed by this, it is the line a learner would search for:
`ExceptionType: message`, with TensorFlow's `{{function_node ...}}` prefix, its empty trailing
`name:` and terminal colour codes taken out. The cell then ends normally, so Run All goes on, and
the docs site (which shows a cell's printed output) shows the same lines as the notebook.
"""
from __future__ import annotations

import re
from contextlib import contextmanager

from gradtutor import messages

# What TensorFlow wraps round an eager op's message, and Keras's terminal bold: noise to a reader.
_FUNCTION_NODE = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_EMPTY_NAME = re.compile(r"\s*name:\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def in_short(error: BaseException) -> str:
    """`ExceptionType: message`, the message without TensorFlow's wrapping and without blank lines."""
    text = _ANSI.sub("", str(error))
    text = _FUNCTION_NODE.sub("", text.strip())
    lines = [_EMPTY_NAME.sub("", line.rstrip()) for line in text.splitlines()]
    message = "\n".join(line for line in lines if line.strip())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


@contextmanager
def expect_error():
    """Run a block that must raise: print the error in short instead of its traceback.

    A block that does not raise is a lesson out of date with TensorFlow: that raises, so the
    notebook tests (which run every lesson) fail on it.
    """
    try:
        yield
    except Exception as error:  # noqa: BLE001 - any error is the demonstration's point
        print(in_short(error))
    else:
        raise AssertionError(messages.say("lessons.demo.did_not_raise"))
