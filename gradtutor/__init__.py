"""gradtutor: why is my gradient None? Exercises and an autograder for TensorFlow's GradientTape."""
__version__ = "0.1.0"


def check(lesson, exercise, function, *, seeds="all"):
    """Check one exercise function in a notebook; see gradtutor.notebook.check."""
    __tracebackhide__ = True  # IPython: show the learner the diagnosis, not our frames
    from gradtutor.notebook import check as _check

    _check(lesson, exercise, function, seeds=seeds)
