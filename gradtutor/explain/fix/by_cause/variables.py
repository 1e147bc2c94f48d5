"""How the script holds its weights: a variable the tape watches kept and changed in place (`variable-replaced`),
a layer frozen by `trainable = False` made trainable around the step that trains it (`frozen_toggled`), a layer's
weight handed to a tf.custom_gradient function as a tensor (`tensor_arguments`), a tensor handed to one by keyword
handed by position (`positional_arguments`), a gradient function that returns fewer gradients than its function has
inputs given None for the rest (`padded_returns`).

Three shapes, each read from the code at the break line:
  - `w = tf.Variable(w0)` inside a loop body, made again every pass from a value the loop never
    changes → the line moves before the loop (made once; its updates are kept);
  - `total += x` on a tf.Variable that is a gradient call's target (a running total, not a weight:
    assign_add would record no path) → the variable is made a tensor where it was made, so `+=`
    builds the sum on the tape;
  - `w -= lr * g` or `w = w - lr * g` on a weight → `w.assign_sub(lr * g)` / `w.assign(…)`; the same for a
    weight kept as an attribute (`self.w = self.w - lr * g` → `self.w.assign(…)`).
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import (GRADIENT_CALLS, Context, NoRepair, Repair, assigned, body_of, called_name,
                                           root, scope_of)
from gradtutor.explain.fix.source import Edit


def variable_replaced(c: Context) -> Repair:
    statement = c.source.statement_at(c.broke)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and _held(statement.targets[0]):
        target = statement.targets[0]
        made_in_loop = _made_again_in_loop(c, statement) if isinstance(target, ast.Name) else None
        if made_in_loop is not None:
            return Repair(made_in_loop, c.subject())
        value = statement.value
        if c.is_tf(value, "Variable") and value.args:
            value = value.args[0]
        text = f"{c.source.code(target)}.assign({c.source.code(value)})"
    elif isinstance(statement, ast.AugAssign) and _held(statement.target) and isinstance(
            statement.op, (ast.Add, ast.Sub)):
        total = _running_total(c, statement) if isinstance(statement.target, ast.Name) else None
        if total is not None:
            return Repair(total, c.subject())
        method = "assign_add" if isinstance(statement.op, ast.Add) else "assign_sub"
        text = f"{c.source.code(statement.target)}.{method}({c.source.code(statement.value)})"
    else:
        raise NoRepair("pattern")
    return Repair([Edit(*c.source.span(statement), text)], c.subject())


def _held(target: ast.AST) -> bool:
    """A name, or an attribute of one (`self.w`, `model.dense.kernel`): where a variable is kept and can be assigned
    in place."""
    return isinstance(root(target), ast.Name)


def _made_again_in_loop(c: Context, statement: ast.Assign) -> list[Edit] | None:
    """`NAME = tf.Variable(VALUE)` directly in a for/while body whose passes never rebind what VALUE reads: the
    line moved to just before the loop, at the loop's indent. None for any other shape."""
    loop = c.source.parents.get(statement)
    if not (isinstance(loop, (ast.For, ast.While)) and statement in loop.body and len(loop.body) > 1
            and c.is_tf(statement.value, "Variable")):
        return None
    read = {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}
    bound = {n.id for part in (*loop.body, getattr(loop, "target", None)) if part is not None
             for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound.discard(statement.targets[0].id)  # the variable's own name: it is what moves
    if read & bound or statement.lineno != statement.end_lineno:
        return None
    start = c.source.line_start(statement.lineno)
    end = start + len(c.source.lines[statement.lineno - 1])
    line = c.source.lines[statement.lineno - 1].strip()
    before = c.source.line_start(loop.lineno)
    return [Edit(before, before, f"{c.source.indent(loop.lineno)}{line}{c.source.newline}"), Edit(start, end, "")]


def _running_total(c: Context, statement: ast.AugAssign) -> list[Edit] | None:
    """`NAME += …` where NAME was last made as `tf.Variable(VALUE)` and is the target of a gradient call, never
    one of its sources: that creation becomes `tf.convert_to_tensor(VALUE)`. None for any other shape."""
    name = statement.target.id
    made = assigned(c, statement.target)
    if made is None:
        return None
    creation = made.value
    if not (c.is_tf(creation, "Variable") and len(creation.args) == 1 and not creation.keywords):
        return None
    targets, sources = set(), set()
    for call in ast.walk(c.source.tree):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in GRADIENT_CALLS
                and len(call.args) >= 2):
            targets |= {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
            sources |= {n.id for n in ast.walk(call.args[1]) if isinstance(n, ast.Name)}
    if name not in targets or name in sources:
        return None
    return [Edit(*c.source.span(creation.func), f"{c.tf}.convert_to_tensor")]


TRAINS = ("fit", "train_on_batch")  # a Keras step that trains the model it is called on
READS = ("trainable_variables", "trainable_weights")  # what a step of one's own trains


def frozen_toggled(c: Context) -> list[Edit]:
    """`LAYER.trainable = True` before the statements that train the layer frozen on the break line, and `= False`
    after them, so the freeze holds everywhere else (a GAN's combined model). Those statements: the one at the
    finding's line (a `LAYER.train_on_batch`, or the gradient call asking for `LAYER.trainable_variables`, with its
    tape's `with` block) and the statements right after it that train the layer too (its apply_gradients, a second
    train_on_batch). Keras 3 reads `trainable` when it makes a step, so the flag is set before the first of them."""
    frozen = c.source.statement_at(c.broke)
    if not (isinstance(frozen, ast.Assign) and len(frozen.targets) == 1 and isinstance(frozen.targets[0], ast.Attribute)
            and frozen.targets[0].attr == "trainable" and isinstance(frozen.value, ast.Constant)
            and frozen.value.value is False):
        raise NoRepair("frozen")
    layer = c.source.code(frozen.targets[0].value)
    first = c.source.statement_at(c.line)
    if first is None or not _trains(c, first, layer):
        raise NoRepair("frozen")
    tape = next((call.func.value.id for call in ast.walk(first) if isinstance(call, ast.Call)
                 and isinstance(call.func, ast.Attribute) and call.func.attr in GRADIENT_CALLS
                 and isinstance(call.func.value, ast.Name)), None)
    body = body_of(c.source, first)
    if tape is not None:  # the tape's block comes first: the flag is read when the block runs the layer
        block = c.tape_block(tape)[0]
        first = block if block in body and body.index(block) < body.index(first) else first
    if frozen.lineno >= first.lineno or first not in body:
        raise NoRepair("frozen")
    last = first
    for statement in body[body.index(first) + 1:]:
        if not _trains(c, statement, layer):
            break
        last = statement
    indent, newline = c.source.indent(first.lineno), c.source.newline
    before = c.source.line_start(first.lineno)
    after = c.source.after_line(last.end_lineno)
    return [Edit(before, before, f"{indent}{layer}.trainable = True{newline}"),
            Edit(after, after, f"{indent}{layer}.trainable = False{newline}")]


def _trains(c: Context, statement: ast.stmt, layer: str) -> bool:
    """Does the statement train the layer: `LAYER.fit(…)`, `LAYER.train_on_batch(…)`, or read its trainables?"""
    for node in ast.walk(statement):
        if isinstance(node, ast.Attribute) and node.attr in READS + TRAINS and c.source.code(node.value) == layer:
            return True
    return False


ASSIGNS = ("assign", "assign_add", "assign_sub")


def made_variable(c: Context) -> list[Edit] | None:
    """A tensor the tape did not watch that the program then updates in place as a weight (`b1 = tf.zeros([512])`, and
    `p.assign_sub(lr * g)` for each `p` of a list holding it): made a `tf.Variable` where it was made, so the tape
    watches it and the update works (a `tape.watch` would mend the gradient, and the program would fail on the
    update). None when the break line makes no such name."""
    made = c.source.statement_at(c.broke)
    names = set(c.finding.get("sources") or ())
    if not (isinstance(made, ast.Assign) and len(made.targets) == 1 and isinstance(made.targets[0], ast.Name)
            and made.targets[0].id in names and isinstance(made.value, ast.Call) and not c.is_tf(made.value, "Variable")):
        return None
    name = made.targets[0].id
    if not any(_updated(node, name) for node in ast.walk(c.source.tree)):
        return None
    start, end = c.source.span(made.value)
    return [Edit(start, start, f"{c.tf}.Variable("), Edit(end, end, ")")]


def _updated(node: ast.AST, name: str) -> bool:
    """Is `node` an in-place update of `name`: `name.assign_sub(…)`, or `p.assign_sub(…)` in a loop over a list that
    names it (`for p, g in zip([w1, b1], grads)`)?"""
    if _assigns(node, {name}):
        return True
    if not isinstance(node, ast.For) or not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.iter)):
        return False
    looped = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return any(_assigns(call, looped) for call in ast.walk(node))


def _assigns(node: ast.AST, names: set) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ASSIGNS \
        and isinstance(node.func.value, ast.Name) and node.func.value.id in names


def tensor_arguments(c: Context) -> list[Edit]:
    """A tf.custom_gradient function given a layer's weight (`clipped_matmul(x, self.kernel)`) reads a variable, so
    TensorFlow asks its gradient function for `variables=`; given the weight's value instead
    (`tf.convert_to_tensor(self.kernel)`), it reads none, its gradient for that argument is the weight's, and the
    tape carries it back to the variable. Each argument on the finding's call line that is a weight (an attribute
    of `self`, or a name made by tf.Variable) is converted; NoRepair("pattern") when there is none."""
    weights = {t.id for n in ast.walk(c.source.tree) if isinstance(n, ast.Assign) and c.is_tf(n.value, "Variable")
               for t in n.targets if isinstance(t, ast.Name)}
    edits = []
    for call in c.source.nodes_on(c.line, ast.Call):
        for argument in call.args:
            attribute = isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) \
                and argument.value.id == "self"
            if attribute or isinstance(argument, ast.Name) and argument.id in weights:
                code = c.source.code(argument)
                edits.append(Edit(*c.source.span(argument), f"{c.tf}.convert_to_tensor({code})"))
    if not edits:
        raise NoRepair("pattern")
    return edits


def positional_arguments(c: Context) -> list[Edit]:
    """A tf.custom_gradient function given tensors by keyword (`loss(y_pred, y_true=y)`) counts only the positional
    ones as its inputs (and, traced, refuses the keywords outright). Where those keywords are the parameters that
    follow the positional arguments in the function's own `def`, they are passed by position, in its order;
    NoRepair("pattern") otherwise (a keyword the def does not take in that place)."""
    names = set(filter(None, (c.finding.get("facts") or {}).get("keywords", "").split(",")))
    defs = {node.name: node for node in ast.walk(c.source.tree) if isinstance(node, ast.FunctionDef)}
    for call in c.source.nodes_on(c.broke, ast.Call):
        given = {k.arg: k.value for k in call.keywords if k.arg in names}
        callee = defs.get(called_name(call))
        if not names or set(given) != names or callee is None or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        following = [a.arg for a in callee.args.args][len(call.args):len(call.args) + len(given)]
        if set(following) != names:
            continue
        rest = [c.source.code(k) for k in call.keywords if k.arg not in names]
        arguments = [c.source.code(a) for a in call.args] + [c.source.code(given[n]) for n in following] + rest
        return [Edit(*c.source.span(call), f"{c.source.code(call.func)}({', '.join(arguments)})")]
    raise NoRepair("pattern")


def tracked(c: Context) -> list[Edit]:
    """A raw tf.Variable a Keras 3 layer or model holds (an attribute, a list of them) is not among its weights, so
    neither fit nor `trainable_variables` sees it: made a `keras.Variable` where it is made, which a layer tracks
    (`initial_value=` becomes `initializer=`). No edit when the line makes no tf.Variable."""
    keras = c.source.module_alias("keras") or f"{c.tf}.keras"
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        if c.is_tf(call, "Variable") and isinstance(call.func, ast.Attribute):
            edits.append(Edit(*c.source.span(call.func), f"{keras}.Variable"))
            edits += [Edit(c.source.span(k)[0], c.source.span(k)[0] + len(k.arg), "initializer")
                      for k in call.keywords if k.arg == "initial_value"]
    return edits


def signature_edits(c: Context) -> list[Edit]:
    """The repair of a tf.custom_gradient refusal, by what was refused: a tensor given by keyword, a gradient function
    returning too few gradients, or else a layer's weight handed to the function (`variables=` asked for)."""
    facts = c.finding.get("facts") or {}
    if facts.get("keywords"):
        return positional_arguments(c)
    if "too few gradients" in facts.get("error", "") or "gradients, but returned" in facts.get("error", ""):
        return padded_returns(c)
    return tensor_arguments(c)


def padded_returns(c: Context) -> list[Edit]:
    """`return -dy * l` in the gradient function of `@tf.custom_gradient def flip(x, l)` (a gradient reversal layer's
    strength passed as a tensor): one gradient per input is asked for, so the inputs it leaves out at the end get None
    (no gradient for them: a strength, a mask). NoRepair("pattern") for any other shape (a method's, *args, a return
    that already gives as many)."""
    returned = c.source.statement_at(c.broke)
    gradient = scope_of(c, returned) if isinstance(returned, ast.Return) and returned.value is not None else None
    made = c.source.parents.get(gradient)
    if not (isinstance(gradient, ast.FunctionDef) and isinstance(made, ast.FunctionDef)
            and any(c.source.code(d).rpartition(".")[2] == "custom_gradient" for d in made.decorator_list)):
        raise NoRepair("pattern")
    inputs = [a.arg for a in made.args.posonlyargs + made.args.args]
    given = len(returned.value.elts) if isinstance(returned.value, ast.Tuple) else 1
    if made.args.vararg or not inputs or inputs[0] == "self" or given >= len(inputs):
        raise NoRepair("pattern")
    end = c.source.span(returned.value)[1]
    if isinstance(returned.value, ast.Tuple) and c.source.text[end - 1] == ")":
        end -= 1  # `return (a, b)`: inside the parentheses
    pads = ", None" * (len(inputs) - given)
    return [Edit(end, end, pads[1:] if c.source.text[:end].rstrip().endswith(",") else pads)]  # `(a,)`: ` None`
