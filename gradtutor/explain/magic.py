"""`%load_ext gradtutor` then `%%explain`: run one notebook cell with its tapes instrumented."""
from __future__ import annotations


def register(ipython) -> None:
    from gradtutor.explain.context import explaining

    def explain(line, cell):
        with explaining():
            ipython.run_cell(cell, store_history=False)

    ipython.register_magic_function(explain, magic_kind="cell", magic_name="explain")
