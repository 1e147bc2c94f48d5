"""check() for notebooks and nbgrader test cells.

The function object is not run here: its source (and the definitions before
it) is read from the kernel's input history and graded by the same engine as
`gradtutor check`, in a fresh worker process. So whatever the notebook did to
numpy, TensorFlow or gradtutor in this kernel cannot change the verdict.
"""
from __future__ import annotations

import atexit
import dataclasses
import inspect
import warnings
from pathlib import Path

from gradtutor import course, extract
from gradtutor.engine import Checker, ExerciseResult

_checker: Checker | None = None


class CheckFailed(AssertionError):
    """The exercise does not pass; the message is the diagnosis. (nbgrader needs an exception.)"""

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: the learner's code ran in the checker's
        # process, so gradtutor's own frames would only hide the diagnosis.
        return [f"\x1b[31mCheckFailed\x1b[0m: {self}"]


class CheckError(Exception):
    """check() itself was called wrongly (unknown lesson or exercise, not a function)."""


class CheckResult(ExerciseResult):
    """The verdict check() returns. It was displayed already, so as a cell's last value it shows nothing:
    an nbgrader test cell must not get an `execute_result` (nbgrader would read it as partial credit)."""

    def _ipython_display_(self) -> None:
        pass


def check(lesson: str, exercise: str, function, *, seeds: str = "all") -> None:
    """Grade `function` as the answer to `exercise` of `lesson`; raise CheckFailed unless it passes.

    The verdict is shown (HTML in a notebook, a line elsewhere); nothing is returned,
    so a test cell's output is the verdict alone.
    """
    __tracebackhide__ = True  # IPython hides this frame: the learner sees the diagnosis
    try:
        the_lesson = course.load().lesson(lesson)
        the_exercise = the_lesson.exercise(exercise)
    except course.UnknownLesson as exc:
        raise CheckError(str(exc)) from None
    if seeds not in ("visible", "hidden", "all"):
        raise CheckError(f"check(): seeds must be 'visible', 'hidden' or 'all', not {seeds!r}")
    if not callable(function) or not hasattr(function, "__code__"):
        raise CheckError(f"check({lesson!r}, {exercise!r}, ...): the third argument must be your function "
                         f"{the_exercise.function}, not {type(function).__name__}")
    cells, where = _cells_for(function)
    name = getattr(function, "__name__", the_exercise.function)
    if name != the_exercise.function and extract.find_function(cells, name).cell is not None:
        the_exercise = dataclasses.replace(the_exercise, function=name)  # graded under the learner's own name
    # Nothing may reach stderr from a test cell: nbgrader scores a cell with stderr output 0.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = _get_checker().check_cells(the_lesson, cells, [the_exercise], seeds, where).exercises[0]
        if seeds == "hidden" and result.status == "fail":
            result = _without_expected_values(result, the_exercise, cells)
        _show(the_lesson.id, result)
    result = CheckResult(**{field.name: getattr(result, field.name) for field in dataclasses.fields(result)})
    if result.status != "pass":
        raise CheckFailed(result.message)


def _without_expected_values(result: ExerciseResult, exercise, cells) -> ExerciseResult:
    """The verdict on hidden inputs, told without the reference's values or shapes.

    nbgrader's feedback shows a test cell's output to the learner; for the hidden
    inputs it may say what is wrong, never what the right numbers are.
    """
    from gradtutor import diagnose

    reports = [_redacted(report) for report in result.reports]
    failed = next((report for report in reports if not report.passed), None)
    if failed is None:
        return result
    message = diagnose.explain_failure(exercise, failed, extract.find_function(cells, exercise.function).source)
    marker = " (right on the visible inputs"
    if marker in result.message:
        message += result.message[result.message.index(marker):]
    return dataclasses.replace(result, message=message, reports=[])  # no table: its rows would be all blanks


def _redacted(report):
    if report.passed:
        return report
    detail = report.detail
    if report.symptom == "shape":
        detail = detail.split(", expected")[0] + ", not the shape this hidden input needs"
    elif report.symptom == "zeros":
        detail = "is zero everywhere on a hidden input, where the reference is not"
    elif report.symptom == "values":
        detail = "differs from the reference on a hidden input"
    return dataclasses.replace(report, detail=detail, exact=None, allclose=None, max_abs_diff=None,
                               worst_index=None, learner_at_worst=None, reference_at_worst=None,
                               learner_max_abs=None, reference_max_abs=None)


def _cells_for(function) -> tuple[list[extract.Cell], str]:
    """Every cell the kernel ran, in order; outside IPython, the function's source file."""
    history = _ipython_history()
    if history:
        return extract.cells_from_sources(history, "notebook cell"), "this notebook"
    path = inspect.getsourcefile(function)
    if path and Path(path).is_file():
        return extract.read_cells(Path(path)), path
    raise CheckError(f"check(): cannot find the source of {function.__name__} — define it in a notebook cell or a .py file")


def _ipython_history() -> list[str] | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    history = shell.user_ns.get("In") or shell.user_ns.get("_ih")
    return [str(source) for source in list(history)[1:]] if history else None


def prestart() -> None:
    """Start the worker (and its TensorFlow import) without waiting for it."""
    _get_checker()


def _get_checker() -> Checker:
    global _checker
    if _checker is None or not _checker.worker.alive:
        _checker = Checker()
        atexit.register(_checker.close)
    return _checker


def _show(lesson_id: str, result: ExerciseResult) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display

        if get_ipython() is not None:
            from gradtutor.report import exercise_html

            display(HTML(exercise_html(lesson_id, result)))
            return
    except ImportError:
        pass
    if result.status == "pass":
        print(f"✓ {lesson_id} / {result.id}: {result.message}")
