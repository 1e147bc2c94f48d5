"""`with gradtutor.explain():` — instrument a block of Python, then show what went wrong."""
from __future__ import annotations

import contextlib
import sys


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
