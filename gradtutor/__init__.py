"""gradtutor: why is my gradient None? Exercises and an autograder for TensorFlow's GradientTape."""
__version__ = "0.1.0"


def check(lesson, exercise, function, *, seeds="all"):
    """Check one exercise function in a notebook; see gradtutor.notebook.check."""
    __tracebackhide__ = True  # IPython: show the learner the diagnosis, not our frames
    from gradtutor.notebook import check as _check

    _check(lesson, exercise, function, seeds=seeds)


def hint(lesson, exercise, level=None):
    """Show the next hint for an exercise (or rung `level`); see gradtutor.hints.hint."""
    from gradtutor.hints import hint as _hint

    _hint(lesson, exercise, level)


def solution(lesson, exercise, *, anyway=False):
    """Show an exercise's solution once a check has run your attempt; see gradtutor.hints.solution."""
    from gradtutor.hints import solution as _solution

    _solution(lesson, exercise, anyway=anyway)


def _prestart_in_a_kernel() -> None:
    """In a Jupyter kernel, start the checker's worker now, so TensorFlow loads while the learner reads."""
    import sys

    if "ipykernel" in sys.modules:
        try:
            from gradtutor.notebook import prestart

            prestart()
        except Exception:  # noqa: BLE001 - a head start is an optimisation, never a failure
            pass


_prestart_in_a_kernel()
