"""Every error a user can be shown, and the exit code it means.

A leaf module: it imports nothing of gradtutor's, so every layer can raise these
and the front ends (the CLI, `check()`, `gradtutor grade`) catch the base class
once. The message is one line that names the file, lesson or function at fault
and says what to do; it is printed as it is, never with a traceback.
"""
from __future__ import annotations

BAD_INPUT = 2  # the exit code of every error here: the user's input (or set-up) is at fault


class GradtutorError(Exception):
    """A problem the user can fix: one line saying what, and what to do."""

    exit_code = BAD_INPUT

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(GradtutorError):
    """The command line itself is wrong: an unknown option, a missing argument, a bad value."""


class UnknownLesson(GradtutorError):
    """A lesson or exercise name that is not in the course; the message lists the valid ones."""


class UnreadableFile(GradtutorError):
    """The learner's file cannot be used at all (missing, not text, corrupt JSON, wrong format)."""


class WorkspaceError(GradtutorError):
    """A workspace problem: none found, a path in the way, a lesson file missing."""


class CourseError(GradtutorError):
    """The course manifest (course.toml, a lesson.toml) or a lesson's files are inconsistent: names the lesson and key."""


class CheckerUnavailable(GradtutorError):
    """The checker's worker could not be started or died (TensorFlow does not import, the machine is out of memory)."""


class ClassroomError(GradtutorError):
    """A course folder or its submissions cannot be graded as asked (nbgrader layout, missing students)."""


class NoHiddenInputs(GradtutorError):
    """Hidden inputs were asked for where there are none: outside a course made by `gradtutor classroom init`."""


class CourseSecretError(GradtutorError):
    """A course's nbgrader_config.py holds no usable hidden-input secret (missing or malformed)."""


# --------------------------------------------------------------------------- check() in a notebook
# Not GradtutorErrors: nbgrader needs an exception to score a test cell 0, and shows it with its traceback.


class CheckError(Exception):
    """check() itself was called wrongly (unknown lesson or exercise, not a function)."""


class CheckFailed(AssertionError):
    """An exercise did not pass; the message is the diagnosis. nbgrader needs an exception to score 0.

    `check()` raises the subclass for the verdict's status, so the name nbgrader records
    (`ename`) carries the status and the classroom reads it from there, never from the text
    (gradtutor.protocol.failure_for and status_from_exception_name map them).
    """

    status = "fail"  # a gradtutor.protocol.Status word: this module imports nothing of gradtutor's


class ExerciseFailed(CheckFailed):
    """It returned a wrong answer."""

    status = "fail"


class ExerciseNotAttempted(CheckFailed):
    """The starter is unchanged."""

    status = "not_attempted"


class ExerciseErrored(CheckFailed):
    """It raised, crashed or could not be loaded."""

    status = "error"


class ExerciseTimedOut(CheckFailed):
    """It ran past its time."""

    status = "timeout"
