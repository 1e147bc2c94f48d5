"""A value that went through state the tape does not follow, where one edit keeps it a tensor.

A Keras metric called as a loss: a metric adds each call into running totals held in variables and returns what
they give, which the tape cannot follow back. The loss of the same name computes the value from the batch alone
(the mean of the values, for Mean):

    mean_loss = keras.metrics.Mean()                          →  mean_loss = keras.ops.mean
    cc = keras.metrics.SparseCategoricalCrossentropy(from_logits=True)
                                            →  cc = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

A value written into a variable and read back after it in the same block (`buffer.assign(x * 3.0)`, then
`buffer * buffer`; a layer's `self.memory.assign(h)`, then `return self.memory`): the value is kept in a name,
still written to the variable, and the reads after the write use the name, so the path stays a tensor's:

    buffer.assign(x * 3.0)       →  buffer_value = x * 3.0
    y = buffer * buffer             buffer.assign(buffer_value)
                                    y = buffer_value * buffer_value

A Python number a compiled step read when it was traced (a loss weight, a schedule's value), changed by the program
since: TensorFlow kept the traced value. The number is made a variable where it is first set, and every later
setting of it assigns the variable, which the step reads anew at each call:

    self.kl_weight = 0.0                 →  self.kl_weight = tf.Variable(0.0, trainable=False)
    self.model.kl_weight = min(1.0, e)   →  self.model.kl_weight.assign(min(1.0, e))
    aux_weight += 0.1                    →  aux_weight.assign_add(0.1)

Weights made trainable after fit traced its step (`base.trainable = True` between two fits, as fine-tuning does):
the model is compiled again right after, with the compile call the script already makes, which has fit trace a new
step (and make a new optimizer, which Keras 3 needs for weights its first one never saw). In a Keras callback, the
same compile on `self.model` and `self.model.make_train_function(force=True)`, so fit goes on with the new step. In
a step of one's own, a new tf.function is a change of the program's shape: by hand.

A sum kept in a variable (assign_add in a loop), a tf.data pipeline, an RNN's stored state or an optimizer's update
changes the program's shape and stays by hand.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, assigned, body_of, fresh, scope_of
from gradtutor.explain.fix.source import Edit

# keras.metrics.X whose keras.losses twin computes the same value per batch (CosineSimilarity is not here: the loss
# of that name is the metric's negative)
LOSS_TWINS = {name: name for name in (
    "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy", "KLDivergence", "Poisson",
    "Hinge", "SquaredHinge", "CategoricalHinge")} | {"LogCoshError": "LogCosh"}
WRITES = ("assign", "assign_add", "assign_sub")
UPDATES = {ast.Add: "assign_add", ast.Sub: "assign_sub"}


def kept_tensor(c: Context) -> list[Edit]:
    """The edits for the state on the break line; NoRepair("state") when it is none of the two above."""
    statement = c.source.statement_at(c.broke)
    if statement is None:
        raise NoRepair("state")
    for call in ast.walk(statement):
        if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)):
            made = _metric_made(c, call.func)
            if made is not None:
                return made
    return _read_back(c, statement)


def _metric_made(c: Context, called: ast.AST) -> list[Edit] | None:
    """The making of the metric object `called` names, rewritten as its loss; None when it is not a metric."""
    if isinstance(called, ast.Name):
        maker = assigned(c, called)
    else:  # self.loss_metric: wherever the module assigns that attribute
        text = c.source.code(called)
        makers = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and c.source.code(n.targets[0]) == text]
        maker = makers[0] if len(makers) == 1 else None
    value = maker.value if maker is not None else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    module, kind = c.source.code(value.func.value), value.func.attr
    if module.rpartition(".")[2] != "metrics" and module not in c.source.names_bound_to("keras.metrics"):
        return None
    if kind == "Mean" and all(k.arg in ("name", "dtype") for k in value.keywords) and not value.args:
        keras = c.source.module_alias("keras")
        ops = f"{keras}.ops" if keras else f"{c.tf}.keras.ops" if module.startswith(f"{c.tf}.") else None
        return [Edit(*c.source.span(value), f"{ops}.mean")] if ops else None
    if kind not in LOSS_TWINS:
        return None
    losses = module[:-len("metrics")] + "losses" if module.endswith("metrics") else None
    if losses is None:
        return None
    start, _ = c.source.span(value.func)
    return [Edit(start, c.source.span(value.func)[1], f"{losses}.{LOSS_TWINS[kind]}")]


def _read_back(c: Context, statement: ast.stmt) -> list[Edit]:
    """`V.assign(E)` as a statement, V read after it in the same block: E kept in a name the reads use."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "assign"
            and len(call.args) == 1 and not call.keywords and statement.lineno == c.broke):
        raise NoRepair("state")
    variable = c.source.code(call.func.value)
    block = body_of(c.source, statement)
    if statement not in block:
        raise NoRepair("state")
    reads = []
    for later in block[block.index(statement) + 1:]:
        for node in ast.walk(later):
            written = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                       and node.func.attr in WRITES and c.source.code(node.func.value) == variable)
            if written:
                break
            if (isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)
                    and c.source.code(node) == variable):
                reads.append(node)
        else:
            continue
        break
    if not reads:
        raise NoRepair("state")
    stem = variable.rpartition(".")[2]
    name = fresh(c, f"{stem}_value")
    indent, newline = c.source.indent(statement.lineno), c.source.newline
    kept = f"{name} = {c.source.code(call.args[0])}{newline}{indent}{c.source.code(call.func)}({name})"
    return [Edit(*c.source.span(statement), kept)] + [Edit(*c.source.span(read), name) for read in reads]


def recompiled(c: Context) -> list[Edit]:
    """`X.trainable = True` followed by the script's own `MODEL.compile(…)` (the last one before it at the module's
    level), copied; in a Keras callback's method, `self.model.compile(…)` with that call's arguments and
    `self.model.make_train_function(force=True)`, which has fit go on with the new step. NoRepair("unfrozen") when the
    line is neither, or the script compiles no model."""
    statement = c.source.statement_at(c.broke)
    if not (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Attribute)
            and statement.targets[0].attr == "trainable"):
        raise NoRepair("unfrozen")
    block = body_of(c.source, statement)
    compiles = [s for s in c.source.tree.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "compile"]
    at, newline, indent = c.source.after_line(statement.end_lineno), c.source.newline, c.source.indent(statement.lineno)
    if block is c.source.tree.body:
        before = [s for s in compiles if s.lineno < statement.lineno]
        if not before:
            raise NoRepair("unfrozen")
        copied = c.source.text[c.source.line_start(before[-1].lineno):c.source.after_line(before[-1].end_lineno)]
        added = copied if copied.endswith(newline) else copied + newline
    elif _in_callback(c, statement) and len(compiles) == 1:
        call = compiles[0].value
        arguments = ", ".join([c.source.code(a) for a in call.args] +
                              [f"{k.arg}={c.source.code(k.value)}" if k.arg else f"**{c.source.code(k.value)}"
                               for k in call.keywords])
        added = (f"{indent}self.model.compile({arguments}){newline}"
                 f"{indent}self.model.make_train_function(force=True){newline}")
    else:
        raise NoRepair("unfrozen")
    ends = c.source.text.endswith(("\n", "\r"))  # a last line with no newline: the addition starts one
    return [Edit(at, at, added if ends or at < len(c.source.text) else newline + added)]


def _in_callback(c: Context, statement: ast.stmt) -> bool:
    """Is the statement in a method (its first parameter `self`) of a class deriving from a Callback?"""
    method = scope_of(c, statement)
    owner = c.source.parents.get(method)
    return (isinstance(owner, ast.ClassDef) and bool(method.args.args) and method.args.args[0].arg == "self"
            and any(c.source.code(base).rpartition(".")[2] == "Callback" for base in owner.bases))


def made_variable(c: Context) -> list[Edit]:
    """The frozen number (the finding's facts["name"], read on the break line) made a tf.Variable where it is first
    set to a number, each later setting an assign; NoRepair("frozen_state") when it is not first set to a number,
    or is set in a way an assign cannot say (a tuple's unpacking, a chained assignment)."""
    name = (c.finding.get("facts") or {}).get("name")
    read = [n for n in c.source.nodes_on(c.broke, ast.AST)  # read there, or changed there (`step += 1`)
            if isinstance(n, ast.Attribute) and n.attr == name or isinstance(n, ast.Name) and n.id == name]
    if not name or not read:
        raise NoRepair("frozen_state")
    settings = sorted(_settings(c, name, isinstance(read[0], ast.Attribute)), key=lambda s: (s.lineno, s.col_offset))
    if not settings or not isinstance(settings[0], ast.Assign) or not _a_number(settings[0].value):
        raise NoRepair("frozen_state")
    number = float(ast.literal_eval(settings[0].value))
    edits = [Edit(*c.source.span(settings[0].value), f"{c.tf}.Variable({number!r}, trainable=False)")]
    for setting in settings[1:]:
        value = c.source.code(setting.value)
        if isinstance(setting, ast.AugAssign):
            target = c.source.code(setting.target)
            method = UPDATES.get(type(setting.op))
            change = (f"{target}.{method}({value})" if method else
                      f"{target}.assign({target} {_symbol(setting.op)} ({value}))")
        else:
            change = f"{c.source.code(setting.targets[0])}.assign({value})"
        edits.append(Edit(*c.source.span(setting), change))
    return edits


def _settings(c: Context, name: str, by_attribute: bool) -> list[ast.stmt]:
    """Every statement that sets the number: `ANY.name = …` and a class body's `name = …` for an attribute; the
    module's `name = …` and a `global name` function's for a global. NoRepair where one cannot become an assign."""
    found = []
    for node in ast.walk(c.source.tree):
        if not isinstance(node, (ast.Assign, ast.AugAssign)):
            continue
        targets = [node.target] if isinstance(node, ast.AugAssign) else node.targets
        scope = _scope(c, node)
        hits = [t for target in targets for t in ast.walk(target)
                if (isinstance(t, ast.Attribute) and t.attr == name if by_attribute else False)
                or isinstance(t, ast.Name) and t.id == name and _the_name(scope, name, by_attribute)]
        if not hits:
            continue
        if len(targets) != 1 or hits[0] is not targets[0]:
            raise NoRepair("frozen_state")  # `a, self.w = …`, `x = self.w = …`, `self.w[0] = …`
        found.append(node)
    return found


def _scope(c: Context, node: ast.AST) -> ast.AST:
    """The function, class or module a statement is in."""
    scope = c.source.parents.get(node)
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        scope = c.source.parents.get(scope)
    return scope if scope is not None else c.source.tree


def _the_name(scope: ast.AST, name: str, by_attribute: bool) -> bool:
    """Is a bare `name = …` in that scope the number's setting: a class body's (an attribute read through an
    instance), the module's or a `global name` function's (a global)? A local of the same spelling is not."""
    if by_attribute:
        return isinstance(scope, ast.ClassDef)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(scope))
    return isinstance(scope, ast.Module)


def _a_number(value: ast.AST) -> bool:
    try:
        number = ast.literal_eval(value)
    except ValueError:
        return False
    return type(number) in (int, float)


def _symbol(op: ast.operator) -> str:
    return {ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.FloorDiv: "//", ast.Mod: "%"}.get(type(op), "+")
