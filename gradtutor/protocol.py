"""The vocabulary every part of gradtutor shares, and the typed messages that cross a process boundary.

One set of names for a verdict travels from the child that ran the learner's code,
through the parent that compared it, to the CLI, `--json`, a notebook's `check()`
and nbgrader's gradebook: statuses, symptoms, value kinds and cause ids are enums
here, and nothing downstream decides a status by reading English. How each is
shown (its mark, label and colour) is a function of the enum, defined once here.

The payloads (gradtutor.payloads, re-exported here) are TypedDicts: the child writes
them and the parent reads them as plain JSON (never pickle); the types say which fields exist.

A ground module: of gradtutor's it imports only the payloads and, when a status is shown, the
message catalogue (gradtutor.messages) for its label; nothing heavy.
"""
from __future__ import annotations

import enum
from typing import NamedTuple

# check()'s exceptions live with every other error; their statuses are this vocabulary's.
from gradtutor.errors import CheckFailed, ExerciseErrored, ExerciseFailed, ExerciseNotAttempted, ExerciseTimedOut
# The typed messages live in their own module; they are part of this vocabulary.
from gradtutor.payloads import (CellSource, RunFacts, ChildResult, ChildStatus, ErrorDescription, ExerciseRef,  # noqa: F401
                                CheckReply, CheckRequest, ConsoleInfo, DaemonStop, ExplainResult,
                                GradingJob, Job, NotebookVerdict, Tolerance,
                                ValueDescription, WorkerMessage)


class Word(str, enum.Enum):
    """A vocabulary word: compares equal to its text, and prints as it."""

    def __str__(self) -> str:
        return self.value


class Status(Word):
    """The verdict on one exercise. Only PASS earns points."""

    PASS = "pass"
    FAIL = "fail"  # it ran and returned something wrong: a diagnosis says why
    NOT_ATTEMPTED = "not_attempted"  # the starter is unchanged, or it raised NotImplementedError
    ERROR = "error"  # it raised, crashed, ran out of memory, or the file is at fault
    TIMEOUT = "timeout"  # it ran past its time

    @property
    def display(self) -> "Display":
        """How the status is shown: its mark, label (in the current language), terminal style and CSS colour."""
        from gradtutor.messages import say  # the catalogue is read once, when a status is first shown

        return _DISPLAY[self]._replace(label=say(f"check.status.{self.value}"))

    @property
    def exception_name(self) -> str:
        """The name of the exception `check()` raises for this status (what nbgrader records as `ename`)."""
        return _EXCEPTION_NAMES[self]


class Display(NamedTuple):
    mark: str
    label: str
    style: str  # a rich colour for the terminal
    colour: str  # a CSS colour for notebooks and HTML reports


_DISPLAY = {
    Status.PASS: Display("✓", "pass", "green", "#1a7f37"),
    Status.FAIL: Display("✗", "fail", "red", "#cf222e"),
    Status.NOT_ATTEMPTED: Display("·", "not attempted", "dim", "#9a6700"),
    Status.ERROR: Display("!", "error", "yellow", "#9a6700"),
    Status.TIMEOUT: Display("⧗", "timeout", "yellow", "#9a6700"),
}


# What the comparison found first, in the order it looks (None → type → shape → dtype → non-finite → values);
# ERROR: the code raised instead of returning.
# TINY: a gradient whose every element is below gradtutor.evidence.symptoms.TINY (`gradtutor explain` only).
Symptom = Word("Symptom", [(word.upper(), word) for word in (
    "none", "type", "shape", "dtype", "nonfinite", "zeros", "values", "error", "tiny")])

# What a learner's function returned, as the child describes it (the `type` of a ValueDescription).
ValueKind = Word("ValueKind", {
    "NONE": "None", "TENSOR": "Tensor", "VARIABLE": "Variable", "KERAS_VARIABLE": "keras.Variable",
    "INDEXED_SLICES": "IndexedSlices", "NDARRAY": "ndarray", "NUMPY_SCALAR": "numpy scalar", "FLOAT": "float",
    "INT": "int", "BOOL": "bool", "TUPLE": "tuple", "LIST": "list", "OTHER": "other"})


class Cause(Word):
    """Why a gradient is wrong: the stable id a diagnosis carries (in `--json`, tests and reports).

    The same ids serve the course's checker and `gradtutor explain`; the docs' guide
    has a section for each of the first group.
    """

    # why a gradient is None, zero or NaN
    UNWATCHED = "unwatched"
    OUTSIDE_TAPE = "outside-tape"
    LEAVES_TENSORFLOW = "leaves-tensorflow"
    INTEGER_PATH = "integer-path"
    NO_GRADIENT_OP = "no-gradient-op"
    STOP_GRADIENT = "stop-gradient"
    VARIABLE_REPLACED = "variable-replaced"
    STATE_BREAKS_PATH = "state-breaks-path"
    NOT_USED = "not-used"
    SOFTMAX_SUM = "softmax-sum"
    NON_FINITE = "non-finite"
    SATURATION = "saturation"
    DEAD_RELU = "dead-relu"
    TAPE_REUSED = "tape-reused"
    TF_GRADIENTS_EAGER = "tf-gradients-eager"
    CANNOT_WATCH = "cannot-watch"
    WRONG_TAPE = "wrong-tape"
    # a tf.function kept the Python number or bool its code read when it was traced, changed by the program since
    FROZEN_PYTHON_STATE = "frozen-python-state"
    # tf.custom_gradient refused what a gradient function takes or returns (no `variables=`, too few gradients)
    CUSTOM_GRADIENT_SIGNATURE = "custom-gradient-signature"
    # float16/bfloat16 gradients flushed to 0: the target itself was below the dtype's smallest normal number
    UNDERFLOW = "underflow"
    # a gradient seen None, zero or NaN (or a gradient call that raised) that no cause rule explains (`gradtutor
    # explain` only: gradtutor.evidence.reading.unexplained)
    NOT_KNOWN = "not-known"
    # what is wrong with an exercise's answer itself
    NO_RETURN = "no-return"
    WRONG_TYPE = "wrong-type"
    SHAPE = "shape"
    FORWARD_SHAPE = "forward-shape"  # a shape error in the forward pass, raised before any gradient was asked for
    DTYPE = "dtype"
    SCALE = "scale"  # an exact constant ratio to the reference (a mean for a sum, …)
    SIGN = "sign"
    TRANSPOSED = "transposed"
    WRONG_FUNCTION = "wrong-function"  # connected, but the gradient of another function
    HARD_CODED = "hard-coded"  # right on the visible inputs only
    INPUTS_MODIFIED = "inputs-modified"
    FRESH_WEIGHTS = "fresh-weights"  # wrong values from a layer the function built itself (new random weights)
    # right values, by a way the exercise rules out (lesson.toml `requires`, checked from the run's facts)
    NO_TAPE = "no-tape"  # "computed with a GradientTape": no tape.gradient / jacobian / jvp call ran
    NOT_NUMPY = "not-numpy"  # "computed by NumPy": the value never left TensorFlow
    NOT_ONE_JACOBIAN = "not-one-jacobian"  # "one tape, no loop": not exactly one tape and one Jacobian call
    NO_CUSTOM_GRADIENT = "no-custom-gradient"  # "tf.custom_gradient gives it its derivative": no such function ran
    NOT_FORWARD_MODE = "not-forward-mode"  # "use ForwardAccumulator, no Jacobian": a tape differentiated instead
    NOT_ONE_PASS = "not-one-pass"  # "one forward pass and one tape": more tapes, or the model called again
    WEIGHT_NOT_IN_BUILD = "weight-not-in-build"  # "in `build` with `self.add_weight`": weights made elsewhere
    UNDEFINED_NAME = "undefined-name"  # the function uses a name no loaded cell defines
    LOAD_FAILED = "load-failed"  # a top-level statement of a cell raised when loaded
    RAISED = "raised"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out-of-memory"
    CRASHED = "crashed"
    SANDBOX = "sandbox"
    INTERNALS = "internals"
    NOT_ATTEMPTED = "not-attempted"
    MISSING = "missing"
    SYNTAX = "syntax"
    UNKNOWN = "unknown"


# --------------------------------------------------------------------------- check() in a notebook

# The MIME type of the verdict check() displays beside its HTML (a NotebookVerdict): nbgrader keeps a
# cell's outputs, so the class report reads each check cell's status and cause from here, not from words.
VERDICT_MIME = "application/vnd.gradtutor.verdict+json"


_FAILURES = {Status(cls.status): cls for cls in (ExerciseFailed, ExerciseNotAttempted, ExerciseErrored, ExerciseTimedOut)}
_EXCEPTION_NAMES = {Status.PASS: "", **{status: cls.__name__ for status, cls in _FAILURES.items()}}


def failure_for(status: Status | str) -> type[CheckFailed]:
    """The exception class `check()` raises for a status other than PASS."""
    return _FAILURES[Status(status)]


def status_from_exception_name(name: str) -> Status | None:
    """The status an nbgrader `ename` stands for; None for an exception that is not a verdict."""
    for status, cls in _FAILURES.items():
        if cls.__name__ == name:
            return status
    return None
