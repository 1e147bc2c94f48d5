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

import sys
import types

from gradtutor.explain.context import display, explaining  # noqa: F401 - the package's API


def add_verbs(verbs) -> None:
    from gradtutor.explain.command import add_verbs as add

    add(verbs)


def load_ipython_extension(ipython) -> None:
    from gradtutor.explain.magic import register

    register(ipython)


class _CallableModule(types.ModuleType):
    """`gradtutor.explain()` is the context manager, while `gradtutor.explain` stays a package."""

    def __call__(self, show: bool = True, fix: bool = False):
        return explaining(show, fix)


sys.modules[__name__].__class__ = _CallableModule
