"""outside-tape: what the gradient's path needs, computed outside the tape's `with` block, moved into the block.

- The statements between the block and the gradient call (the target computed after the `with` ended) move into
  the block's end.
- A step before the block (`x2 = x + noise`, then `with`, `tape.watch(x)`) moves into the block after its watch
  calls. When the step sits inside a statement before the block (a rollout loop that collects the
  log-probabilities, then a `with` around the loss alone), or what follows it up to the block reads what it made,
  every statement from the one holding the step up to the block moves, in order: the program runs the same
  statements in the same order, now recorded.
- A module-level step read by a function's block, or by a block in a loop of the module's own, is computed again at
  the top of the block (`_local_copy`).
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, Repair, hoist, scope_of
from gradtutor.explain.fix.source import Edit, names_in, names_read_now


def outside_tape(c: Context) -> Repair:
    """The statements between the `with` block and the gradient call move inside it; a target sliced in the call too."""
    call, tape = c.gradient_call()
    block, _ = c.tape_block(tape)
    asking = c.source.statement_at(c.line)
    body = getattr(c.source.parents.get(block), "body", None)
    if asking is None or body is None or block not in body or asking not in body:
        raise NoRepair("pattern")
    moved = body[body.index(block) + 1:body.index(asking)]
    inner = c.source.indent(block.body[0].lineno)[len(c.source.indent(block.lineno)):]
    edits, strings = [], c.source.multiline_strings()
    for lineno in range(moved[0].lineno, moved[-1].end_lineno + 1) if moved else ():
        if lineno in strings:
            raise NoRepair("pattern")
        if c.source.lines[lineno - 1].strip():
            at = c.source.line_start(lineno)
            edits.append(Edit(at, at, inner))
    if not isinstance(call.args[0], ast.Name):
        edits += hoist(c, call, block, moved[-1] if moved else block.body[-1], "{}")
    if not edits:
        edits = _before(c, body, block)
    return Repair(edits, c.subject())


def _before(c: Context, body: list, block: ast.With) -> list[Edit]:
    """The step on the break line, made before the block, moves into it after its `tape.watch` calls: alone when it
    is one line of the block's own body that nothing up to the block reads; else with every statement from the one
    holding it up to the block."""
    step = c.source.statement_at(c.broke)
    if step is None:
        raise NoRepair("pattern")
    holder = _holder(c, step, body)
    one_line = isinstance(step, ast.Assign) and step.lineno == step.end_lineno
    if holder is None:  # another scope: a module-level step that a function's block (or a module loop's) reads
        made = _bound([step])
        if one_line and step in c.source.tree.body and step.end_lineno < block.lineno and _local_copy(c, block, made):
            return [_insert(c, block, [step], made)]
        raise NoRepair("pattern")
    if body.index(holder) >= body.index(block) or isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                       ast.ClassDef)):
        raise NoRepair("pattern")  # a step in a def's body runs where the def is called, not where it stands
    between = body[body.index(holder) + 1:body.index(block)]
    span = [step] if holder is step and one_line and not _bound([step]) & names_read_now(between) else \
        [holder, *between]
    if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.decorator_list for s in span):
        raise NoRepair("pattern")  # a decorator's lines come before its statement's first line
    made = _bound(span)
    if made & names_in(block.items):  # the `with` line itself reads what the span makes
        raise NoRepair("pattern")
    start = c.source.line_start(span[0].lineno)
    end = span[-1].end_lineno
    stop = c.source.after_line(end)
    return [Edit(start, stop, ""), _insert(c, block, span, made)]


def _insert(c: Context, block: ast.With, span: list, made: set) -> Edit:
    """The span's lines, indented as the block's body, put after the block's leading `tape.watch` calls (which must
    not watch what the span makes: a watch before the value exists watches the old one)."""
    watches = []
    for statement in block.body:
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "watch"):
            break
        watches.append(statement)
    if made & names_in(watches):
        raise NoRepair("pattern")
    first = block.body[len(watches)] if len(watches) < len(block.body) else None
    below = first.lineno if first is not None else watches[-1].end_lineno + 1
    at = c.source.after_line(below - 1)
    indent = c.source.indent(block.body[0].lineno)
    base, strings, lines = c.source.indent(span[0].lineno), c.source.multiline_strings(), []
    for lineno in range(span[0].lineno, span[-1].end_lineno + 1):
        line = c.source.lines[lineno - 1]
        if not line.strip():
            lines.append(line)
            continue
        if lineno in strings or not line.startswith(base):  # a string's own lines, a continuation left of the code
            raise NoRepair("pattern")
        lines.append(indent + line[len(base):])
    text = "".join(lines)
    if not text.endswith(("\n", "\r")):
        text += c.source.newline
    return Edit(at, at, text)


def _holder(c: Context, step: ast.stmt, body: list) -> ast.stmt | None:
    """The statement of `body` that is the step or holds it (a loop, an `if`); None when it is in another one."""
    node = step
    while node is not None and not any(node is s for s in body):
        node = c.source.parents.get(node)
    return node


def _bound(statements: list) -> set[str]:
    """The names these statements bind (assignments, loop targets, `with … as`, definitions)."""
    names = {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names | {d.name for s in statements for d in ast.walk(s)
                    if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _local_copy(c: Context, block: ast.With, made: set) -> bool:
    """A module-level step read by a function whose block is the tape's (`scale = tf.exp(log_scale)` at the top,
    `with` in a tf.function): it is computed again at the top of the block, a local of that function, and the
    module's own stays for its other readers — when the function reads those names nowhere before the block and
    does not declare them global. A block in a loop of the module's own computes them again there, for the
    functions called in it that read them (`scale_tril` made once at the top, read by `log_prob` in the loop)."""
    function = scope_of(c, block)
    if function is c.source.tree:
        return True
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    declared = {n for s in ast.walk(function) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}
    before = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.lineno < block.lineno]
    return not made & declared and not made & {n.id for n in before}
