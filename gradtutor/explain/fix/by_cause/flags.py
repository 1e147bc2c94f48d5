"""A module's True/False flag a compiled step read when it was traced (`if train_encoder:` choosing the variables to
train), set otherwise since: the step takes it as an argument, so tf.function traces again for each value.

    def train_step(xb, yb):          →  def train_step(xb, yb, train_encoder=False):
    loss = train_step(xb, yb)        →  loss = train_step(xb, yb, train_encoder=train_encoder)

A tf.Variable cannot choose Python structure (which variables a list holds), an argument can. When the flag chooses
the variables one Keras optimizer of the module applies gradients to, the new trace would hand it weights it was not
built for, which Keras 3 refuses ("can only be called for the variables it was originally built with"): the
optimizer is built for every list the flag can choose, before the module first calls the step (applying gradients
to some of the variables it was built for is allowed).

    optimizer.build(encoder.trainable_variables + head.trainable_variables)
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, scope_of
from gradtutor.explain.fix.source import Edit

APPLIES = ("apply_gradients", "apply", "minimize")  # an optimizer's calls given the variables


def passed_as_argument(c: Context) -> list[Edit]:
    """A module's True/False flag read by a compiled function (`if train_encoder:` choosing the variables to train):
    a tf.Variable cannot choose Python structure, but an argument can — a Python bool argument makes tf.function trace
    again for each value. The function takes it as a last parameter (its first value as the default) and every call
    of it by name in the file passes the flag; NoRepair("frozen_state") for any other shape (a method, *args, a
    function that sets the name itself, a call through another name)."""
    name = (c.finding.get("facts") or {}).get("name")
    read = [n for n in c.source.nodes_on(c.broke, ast.Name) if n.id == name and isinstance(n.ctx, ast.Load)]
    function = scope_of(c, read[0]) if read else None
    if not isinstance(function, ast.FunctionDef) or c.source.parents.get(function) is not c.source.tree:
        raise NoRepair("frozen_state")
    arguments = function.args
    settings = [s for s in c.source.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    bound = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
    if not settings or type(getattr(settings[0].value, "value", None)) is not bool or bound or arguments.vararg \
            or arguments.kwarg or arguments.kwonlyargs or name in {a.arg for a in arguments.args}:
        raise NoRepair("frozen_state")
    calls = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == function.name]
    if not calls or any(isinstance(a, ast.Starred) for call in calls for a in call.args) or \
            any(k.arg is None for call in calls for k in call.keywords):
        raise NoRepair("frozen_state")
    last = (arguments.defaults or arguments.args or [None])[-1]
    if last is None:  # def f(): the parameter is the only one
        at = c.source.span(function)[0] + c.source.code(function).index("(") + 1
        edits = [Edit(at, at, f"{name}={settings[0].value.value}")]
    else:
        at = c.source.span(last)[1]
        edits = [Edit(at, at, f", {name}={settings[0].value.value}")]
    for call in calls:
        end = c.source.span(call)[1] - 1  # before its closing parenthesis
        edits.append(Edit(end, end, f"{', ' if call.args or call.keywords else ''}{name}={name}"))
    return edits + _built_for_all(c, function, name, min(calls, key=lambda call: (call.lineno, call.col_offset)))


def _built_for_all(c: Context, function: ast.FunctionDef, flag: str, first_call: ast.Call) -> list[Edit]:
    """`OPTIMIZER.build(A + B)` before the module's statement that first calls the function, when an `if FLAG:` in it
    binds one name to lists A and B that a module-level optimizer is then given; [] otherwise."""
    branches = [n for n in ast.walk(function) if isinstance(n, ast.If) and isinstance(n.test, ast.Name)
                and n.test.id == flag]
    chosen = {s.targets[0].id: [] for b in branches for s in b.body + b.orelse
              if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
    for s in ast.walk(function):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and getattr(s.targets[0], "id", None) in chosen:
            chosen[s.targets[0].id].append(s.value)
    optimizers = {n.func.value.id for n in ast.walk(function) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Attribute) and n.func.attr in APPLIES
                  and isinstance(n.func.value, ast.Name) and _given(n, set(chosen))}
    made = [s for s in c.source.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and s.targets[0].id in optimizers
            and "optimizers" in c.source.code(s.value).split("(")[0]]
    if len(optimizers) != 1 or len(made) != 1 or not any(len(v) > 1 for v in chosen.values()):
        return []
    terms = []  # the longest list's first, as the script writes it, then what the others add
    for value in sorted((v for values in chosen.values() for v in values), key=lambda v: -len(_terms(v))):
        terms += [c.source.code(t) for t in _terms(value) if c.source.code(t) not in terms]
    statement = first_call
    while c.source.parents.get(statement) is not c.source.tree:
        statement = c.source.parents[statement]
    if statement.lineno < made[0].end_lineno:
        return []
    at = c.source.line_start(statement.lineno)
    return [Edit(at, at, f"{made[0].targets[0].id}.build({' + '.join(terms)}){c.source.newline}")]


def _given(call: ast.Call, names: set[str]) -> bool:
    """Is one of the names among what the optimizer's call is given (`zip(grads, variables)`, `variables`)?"""
    return any(isinstance(n, ast.Name) and n.id in names for a in [*call.args, *call.keywords] for n in ast.walk(a))


def _terms(value: ast.AST) -> list[ast.AST]:
    """The lists a `+` chain joins: `a.trainable_variables + b.trainable_variables` → both."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _terms(value.left) + _terms(value.right)
    return [value]
