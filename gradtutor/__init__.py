"""gradtutor: why is my gradient None? Exercises and an autograder for TensorFlow's GradientTape.

Importing gradtutor starts nothing: a lesson's set-up cell calls prestart(), and
otherwise the first check() starts the checker.
"""
__version__ = "0.1.0"


def check(lesson, exercise, function, *, seeds="all"):
    """Check one exercise function in a notebook; the verdict, falsy unless it passed (gradtutor.learner.notebook.check)."""
    __tracebackhide__ = True  # IPython: show the learner the diagnosis, not our frames
    from gradtutor.learner.notebook import check as _check

    return _check(lesson, exercise, function, seeds=seeds)


def hint(lesson, exercise, level=None):
    """Show the next hint for an exercise (or rung `level`); see gradtutor.learner.hints.hint."""
    from gradtutor.learner.hints import hint as _hint

    _hint(lesson, exercise, level)


def solution(lesson, exercise, *, anyway=False):
    """Show an exercise's solution once a check has run your attempt; see gradtutor.learner.hints.solution."""
    from gradtutor.learner.hints import solution as _solution

    _solution(lesson, exercise, anyway=anyway)


def expect_error():
    """`with expect_error():` around a demonstration that must fail: its error in short, no traceback."""
    from gradtutor.learner.demo import expect_error as _expect_error

    return _expect_error()


def prestart() -> None:
    """Start the checker now, without waiting for it: TensorFlow loads while the learner reads on."""
    try:
        from gradtutor.learner.notebook import prestart as _prestart

        _prestart()
    except Exception:  # noqa: BLE001 - a head start is an optimisation, never a failure
        pass


def load_ipython_extension(ipython) -> None:
    """`%load_ext gradtutor`: registers the `%%explain` cell magic."""
    from gradtutor.explain import load_ipython_extension as load

    load(ipython)


def __getattr__(name):
    if name == "explain":  # `with gradtutor.explain(): ...` (the package is callable)
        import importlib

        return importlib.import_module("gradtutor.explain")
    raise AttributeError(f"module 'gradtutor' has no attribute {name!r}")
