"""The repair of `tf-gradients-eager`: `tf.gradients(y, x)`, which only works while a graph is built, becomes a
GradientTape and a `tape.gradient` call. The tape records the statement that computes y and those right before it
that make what it reads (`pred = model(x)`, then `loss = f(pred)`) or, when y is computed in the call itself
(`tf.gradients(model(x), x)`), that expression, made a statement of its own inside the tape's block just before the
line. A list of variables (`model.trainable_variables`) is not watched by hand: the tape watches them itself."""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, Repair, body_of, fresh, indent_unit
from gradtutor.explain.fix.source import Edit


# sources that are lists of variables already: the tape watches trainable variables itself (a Keras 3 variable
# cannot be watched by hand), and tape.gradient given a list returns one, as tf.gradients did
VARIABLE_LISTS = ("trainable_variables", "trainable_weights", "variables", "weights")


def tf_gradients_eager(c: Context) -> Repair:
    call = next((n for n in c.source.nodes_on(c.line, ast.Call) if c.is_tf(n, "gradients") and len(n.args) >= 2),
                None)
    if call is None:
        raise NoRepair("pattern")
    first, sources, tape = call.args[0], call.args[1], fresh(c, "tape")
    watched, end, inner = c.source.code(sources), c.source.newline, indent_unit(c.source)
    variables = isinstance(sources, ast.Attribute) and sources.attr in VARIABLE_LISTS
    listed = watched if isinstance(sources, (ast.List, ast.Tuple)) or variables else f"[{watched}]"
    if isinstance(first, ast.Name):  # y made by earlier statements: those it needs go in the block with it
        target = first.id
        made = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Assign) and n.lineno < call.lineno
                and any(isinstance(t, ast.Name) and t.id == target for t in n.targets)]
        if not made:
            raise NoRepair("pattern")
        recorded, computed = _needed(c, made[-1], {n.id for n in ast.walk(sources) if isinstance(n, ast.Name)}), ""
    else:  # y computed in the call: it becomes a statement of the block, before the line that asks
        statement = c.source.statement_at(call.lineno)
        if statement is None or statement.lineno != statement.end_lineno or call.lineno != statement.lineno:
            raise NoRepair("pattern")
        target = fresh(c, "target")
        recorded, computed = [statement], f"{target} = {c.source.code(first)}{end}"
    indent = c.source.indent(recorded[0].lineno)
    watch = "" if variables else f"{indent}{inner}{tape}.watch({watched}){end}"
    opening = f"{indent}with {c.tf}.GradientTape() as {tape}:{end}{watch}"
    start = c.source.line_start(recorded[0].lineno)
    edits = [Edit(start, start, opening)]
    if computed:
        edits.append(Edit(start, start, f"{indent}{inner}{computed}"))
    else:  # each line of the recorded statements one level deeper
        starts = [c.source.line_start(line) for line in range(recorded[0].lineno, recorded[-1].end_lineno + 1)
                  if c.source.lines[line - 1].strip()]
        edits += [Edit(at, at, inner) for at in starts]
    return Repair(edits + [Edit(*c.source.span(call), f"{tape}.gradient({target}, {listed})")], watched)


def _needed(c: Context, made: ast.Assign, sources: set[str]) -> list[ast.stmt]:
    """The statement that makes the target and the ones right before it in its block that make what it reads
    (`pred = model(x)` before `loss = f(pred)`): the tape must record the whole path from the sources. It starts
    after the statement that makes a source (`dream = tf.random.uniform(…)`), which the tape watches once made."""
    block = body_of(c.source, made)
    if made not in block:
        raise NoRepair("pattern")
    needed, kept = {n.id for n in ast.walk(made.value) if isinstance(n, ast.Name)}, [made]
    for before in reversed(block[:block.index(made)]):
        names = {t.id for t in getattr(before, "targets", []) if isinstance(t, ast.Name)}
        if not isinstance(before, ast.Assign) or not names & needed or names & sources:
            break
        needed |= {n.id for n in ast.walk(before.value) if isinstance(n, ast.Name)}
        kept.insert(0, before)
    return kept
