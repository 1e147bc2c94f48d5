"""gradtutor: why is my gradient None? Exercises and an autograder for TensorFlow's GradientTape."""
__version__ = "0.1.0"


def check(lesson, exercise, function, *, seeds="all"):
    """Check one exercise function in a notebook; see gradtutor.notebook.check."""
    __tracebackhide__ = True  # IPython: show the learner the diagnosis, not our frames
    from gradtutor.notebook import check as _check

    _check(lesson, exercise, function, seeds=seeds)


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


def load_ipython_extension(ipython) -> None:
    """`%load_ext gradtutor`: registers the `%%explain` cell magic."""
    from gradtutor.explain import load_ipython_extension as load

    load(ipython)


def __getattr__(name):
    if name == "explain":  # `with gradtutor.explain(): ...` (the package is callable)
        import importlib

        return importlib.import_module("gradtutor.explain")
    raise AttributeError(f"module 'gradtutor' has no attribute {name!r}")
