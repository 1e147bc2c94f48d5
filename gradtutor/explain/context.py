"""`with gradtutor.explain():` — instrument a block of Python, then show what went wrong."""
from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def explaining(show: bool = True, fix: bool = False):
    """Instrument every tape inside the block; on the way out, show the findings (HTML in Jupyter).

    Yields the evidence Record; `gradtutor.evidence.report(record)` gives the findings as dicts and the call
    sites that could not be observed.
    Outside the block nothing of TensorFlow is patched. With `fix`, the verified patch for the
    file the block is in is shown too (gradtutor.explain.fix.cell).
    """
    import gradtutor.quiet  # noqa: F401 - TensorFlow without its start-up noise
    from gradtutor import evidence

    caller = sys._getframe(2)  # the `with` statement's frame (this generator, then contextmanager's __enter__)
    try:
        with evidence.recording() as record:
            yield record
    finally:
        if show:
            findings, unobserved = evidence.report(record)
            display(findings, record.gradient_calls, unobserved, evidence.exact_zeros(record))
        if fix:
            from gradtutor.explain.fix import cell

            plan = cell.fix_block(caller.f_code.co_filename, evidence.analyse(record), caller.f_globals)
            if plan is not None:
                cell.display(plan, plan.original)


def display(findings: list[dict], gradient_calls: int = 1, unobserved=(), exact=()) -> None:
    from gradtutor.explain import findings_view as report

    if report.in_a_kernel():
        try:
            from IPython.display import HTML
            from IPython.display import display as show

            show(HTML(report.as_html(findings, gradient_calls, unobserved, exact)))
            return
        except ImportError:
            pass
    report.print_text(findings, None, 0, gradient_calls, unobserved=unobserved, exact=exact)
