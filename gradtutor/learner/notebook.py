"""check() for notebooks and nbgrader test cells.

The function object is not run here, and nothing is compared here: the sources
of the cells this kernel ran are sent to a checker in another process that grades
them with the same check service as `gradtutor check`. So whatever the notebook did
to numpy, TensorFlow or gradtutor's modules in this kernel cannot change the verdict.
(Code in the kernel can still replace `check` itself; the classroom grader therefore
re-checks submitted files out of process.)

Which checker: gradtutor.learner.judge_lines (the learner's warm daemon, or a judge process).
"""
from __future__ import annotations

import inspect
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.learner.check_result import SKIPPED, CheckResult
from gradtutor.learner.judge_lines import WarmCheckerLine, get_judge, grading
from gradtutor.messages import say
from gradtutor.errors import CheckError, CheckFailed  # noqa: F401 - CheckFailed is API: check() raises its subclasses
from gradtutor.protocol import CheckReply, NotebookVerdict, Status, VERDICT_MIME, failure_for

_said_visible_only = False  # the "visible inputs only" note is shown once per kernel, not under every check


def check(lesson: str, exercise: str, function, *, seeds: str = "all") -> CheckResult:
    """Grade `function` as the answer to `exercise` of `lesson`, show the verdict and return it (falsy unless it passed).

    A learner's Run All goes on past an unfinished exercise: the verdict is shown, and nothing is raised.
    Under nbgrader's execution (autograde, validate: nbgrader sets NBGRADER_EXECUTION around the kernels it
    runs) a verdict other than pass raises the CheckFailed subclass that names its status (ExerciseFailed,
    ExerciseNotAttempted, ExerciseErrored, ExerciseTimedOut), so the gradebook scores the cell 0.
    """
    __tracebackhide__ = True  # IPython hides this frame: the learner sees the diagnosis
    try:
        the_lesson = course.load().lesson(lesson)
        the_exercise = the_lesson.exercise(exercise)
    except course.UnknownLesson as exc:
        raise CheckError(str(exc)) from None
    if seeds not in ("visible", "hidden", "all"):
        raise CheckError(say("check.bad_seeds", seeds=repr(seeds)))
    # a decorated function (@tf.function, functools.wraps) is still the learner's: the checker reads the cells by name
    plain = function
    while callable(plain) and not hasattr(plain, "__code__") and \
            (inner := getattr(plain, "python_function", None) or getattr(plain, "__wrapped__", None)) is not None:
        plain = inner
    if not callable(function) or not hasattr(plain, "__code__"):
        raise CheckError(say("check.not_your_function", lesson=repr(lesson), exercise=repr(exercise),
                             function=the_exercise.function, kind=type(function).__name__))
    function = plain
    sources = _sources_for(function)
    answer = get_judge().ask({"lesson": the_lesson.id, "exercise": the_exercise.id, "seeds": seeds,
                               "function": getattr(function, "__name__", the_exercise.function), "cells": sources,
                               "notebook": _notebook_path(the_lesson)})
    if "problem" in answer:
        raise CheckError(say("check.problem", lesson=repr(lesson), exercise=repr(exercise), problem=answer["problem"]))
    if "skipped" in answer:  # hidden inputs outside a course: one line, and the notebook runs on
        print(answer["skipped"])
        return CheckResult(the_lesson.id, the_exercise.id, SKIPPED, answer["skipped"])
    _show(the_lesson.id, answer, _cell_of(sources, answer.get("function") or function.__name__))
    status = Status(answer["status"])
    if status is not Status.PASS and grading():
        raise failure_for(status)(answer["message"])  # its class name tells nbgrader's gradebook the status
    return CheckResult(the_lesson.id, answer["id"], status.value, answer["message"], answer.get("cause"))


def _notebook_path(lesson) -> str | None:
    from gradtutor.learner.workspace import notebook_for  # the judge records progress for this notebook

    path = notebook_for(lesson)
    return str(path) if path else None


def _cell_of(sources: list[str], name: str) -> str | None:
    """Where the kernel last defined the function, as Jupyter numbers the cell (In [n]); None outside IPython."""
    from gradtutor.learner.verdict_layout import cell_of_history, defines_function

    if _ipython_history() is None:
        return None
    return cell_of_history(sources, lambda source: defines_function(source, name))


def _sources_for(function) -> list[str]:
    """Every cell the kernel ran, in order; outside IPython, the function's source file."""
    history = _ipython_history()
    if history:
        return history
    path = inspect.getsourcefile(function)
    if path and Path(path).is_file():
        return [cell.source for cell in extract.read_cells(Path(path))]
    raise CheckError(say("check.no_source", function=function.__name__))


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
    """Start the checker (the daemon, or a judge and its worker's TensorFlow import) without waiting for it."""
    if isinstance(get_judge(), WarmCheckerLine):
        from gradtutor.learner.daemon import client

        client.start_soon()


def verdict_data(lesson_id: str, answer: CheckReply) -> NotebookVerdict:
    return {"lesson": lesson_id, "exercise": answer["id"], "status": answer["status"],
            "cause": answer.get("cause"), "message": answer["message"]}


def _show(lesson_id: str, answer: dict, cell: str | None = None) -> None:
    global _said_visible_only
    note = None
    if answer.get("visible_only") and not _said_visible_only:
        from gradtutor.checking.diagnose import visible_only

        note, _said_visible_only = visible_only(), True
    note = answer.get("note") or note  # graded on the public hidden inputs: said under every such check
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display

        if get_ipython() is not None:
            from gradtutor.learner.verdict_view import verdict_html

            markup = verdict_html(lesson_id, answer["id"], answer["status"], answer["message"], answer["rows"], cell)
            if answer["status"] != "pass":
                from gradtutor.learner.hints import stuck_note

                markup += stuck_note(lesson_id, answer["id"])[1]
            if note:
                from html import escape

                markup += f'<p class="gradtutor-note" style="opacity:0.75">{escape(note)}</p>'
            # HTML for people; beside it the verdict as data, kept in the cell's output for the class report
            display({"text/html": HTML(markup).data, VERDICT_MIME: verdict_data(lesson_id, answer)}, raw=True)
            return
    except ImportError:
        pass
    if answer["status"] == "pass":
        from gradtutor.learner.verdict_view import verdict_head

        print(verdict_head(lesson_id, answer["id"], answer["status"]))
        print(answer["message"])
    if note:
        print(f"  ({note})")
