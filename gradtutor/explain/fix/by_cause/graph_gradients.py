"""The repair of `tf-gradients-eager`: `tf.gradients(y, x)`, which only works while a graph is built, becomes a
GradientTape and a `tape.gradient` call. The tape records the statement that computes y (`y = model(x)` earlier)
or, when y is computed in the call itself (`tf.gradients(model(x), x)`), that expression, made a statement of its
own inside the tape's block just before the line."""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, Repair, fresh, indent_unit
from gradtutor.explain.fix.source import Edit


def tf_gradients_eager(c: Context) -> Repair:
    call = next((n for n in c.source.nodes_on(c.line, ast.Call) if c.is_tf(n, "gradients") and len(n.args) >= 2),
                None)
    if call is None:
        raise NoRepair("pattern")
    first, sources, tape = call.args[0], call.args[1], fresh(c, "tape")
    watched, end, inner = c.source.code(sources), c.source.newline, indent_unit(c.source)
    listed = watched if isinstance(sources, (ast.List, ast.Tuple)) else f"[{watched}]"
    if isinstance(first, ast.Name):  # y made by an earlier one-line statement: that statement goes in the block
        target = first.id
        made = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Assign) and n.lineno < call.lineno
                and any(isinstance(t, ast.Name) and t.id == target for t in n.targets)]
        if not made or made[-1].lineno != made[-1].end_lineno:
            raise NoRepair("pattern")
        statement, computed = made[-1], ""
    else:  # y computed in the call: it becomes a statement of the block, before the line that asks
        statement = c.source.statement_at(call.lineno)
        if statement is None or statement.lineno != statement.end_lineno or call.lineno != statement.lineno:
            raise NoRepair("pattern")
        target = fresh(c, "target")
        computed = f"{target} = {c.source.code(first)}{end}"
    indent = c.source.indent(statement.lineno)
    start = c.source.line_start(statement.lineno)
    opening = f"{indent}with {c.tf}.GradientTape() as {tape}:{end}{indent}{inner}{tape}.watch({watched}){end}{indent}{inner}"
    if computed:
        opening += computed + indent
    return Repair([Edit(start, start + len(indent), opening),
                   Edit(*c.source.span(call), f"{tape}.gradient({target}, {listed})")], watched)
