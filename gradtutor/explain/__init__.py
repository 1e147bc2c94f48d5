"""`gradtutor explain`: say why the gradients of anyone's own code came back None, zero or NaN.

    gradtutor explain train.py ARGS          # the CLI (command.py, child.py)
    with gradtutor.explain():                # in Python or a notebook: instruments the block
        ...
    %load_ext gradtutor  then  %%explain     # a notebook cell

The evidence comes from gradtutor.evidence; this package runs, shows and registers.
Modules: command (the verb, the parent side), child (runs the script), report (text, HTML, JSON),
magic (IPython).
"""
from __future__ import annotations

import contextlib
import sys
import types


@contextlib.contextmanager
def explaining(show: bool = True):
    """Instrument every tape inside the block; on the way out, show the findings (HTML in Jupyter).

    Yields the evidence Record; `gradtutor.evidence.analyse(record)` gives the findings as dicts.
    Outside the block nothing of TensorFlow is patched.
    """
    import gradtutor.quiet  # noqa: F401 - TensorFlow without its start-up noise
    from gradtutor import evidence

    try:
        with evidence.recording() as record:
            yield record
    finally:
        if show:
            display(evidence.analyse(record), record.gradient_calls)


def display(findings: list[dict], gradient_calls: int = 1) -> None:
    from gradtutor.explain import report

    if "ipykernel" in sys.modules:
        try:
            from IPython.display import HTML
            from IPython.display import display as show

            show(HTML(report.as_html(findings, gradient_calls)))
            return
        except ImportError:
            pass
    report.print_text(findings, None, 0, gradient_calls)


def add_verbs(verbs) -> None:
    from gradtutor.explain.command import add_verbs as add

    add(verbs)


def load_ipython_extension(ipython) -> None:
    from gradtutor.explain.magic import register

    register(ipython)


class _CallableModule(types.ModuleType):
    """`gradtutor.explain()` is the context manager, while `gradtutor.explain` stays a package."""

    def __call__(self, show: bool = True):
        return explaining(show)


sys.modules[__name__].__class__ = _CallableModule
