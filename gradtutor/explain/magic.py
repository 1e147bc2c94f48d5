"""`%load_ext gradtutor` then `%%explain` (or `%%explain --fix`): run one notebook cell with its tapes instrumented."""
from __future__ import annotations


def register(ipython) -> None:
    from gradtutor.explain.context import explaining

    def explain(line, cell):
        with explaining() as record:
            ipython.run_cell(cell, store_history=False)
        if "--fix" in line.split():  # %%explain --fix: the patched cell beside the original, verified
            from gradtutor.explain.fix.cell import show_cell_fix

            show_cell_fix(cell, record, getattr(ipython, "user_ns", {}))

    ipython.register_magic_function(explain, magic_kind="cell", magic_name="explain")
