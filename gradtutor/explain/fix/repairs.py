"""One source transformation per cause: the finding (cause, the gradient call's line, the break line) → edits.

Each repair rewrites the smallest span that removes the cause, in the user's own names (the tape's `as` name,
the sources' expression, the file's tensorflow/numpy aliases). Code a repair does not recognise raises NoRepair
(context.py); a cause whose repair is a modelling choice (a saturated activation, but for data too large) has none.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import (GRADIENT_CALLS, Context, NoRepair, Repair, drop_argument, hoist,
                                           import_tensorflow, release_after_last_use, renamed, scope_of)
from gradtutor.explain.fix.by_cause import activations, discrete, flags, floors, optimizer, state, zero
from gradtutor.explain.fix.by_cause.graph_gradients import tf_gradients_eager
from gradtutor.explain.fix.by_cause.numpy_function import numpy_function
from gradtutor.explain.fix.by_cause.numpy_steps import leaves_tensorflow
from gradtutor.explain.fix.by_cause.outside import outside_tape
from gradtutor.explain.fix.source import Edit, Source, names_in
from gradtutor.explain.fix.by_cause.variables import (frozen_toggled, made_variable, signature_edits, tracked,
                                                      variable_replaced)
from gradtutor.protocol import Cause

# repairs that read only the break line (a layer's activation, a variable's making), not the tape or its call: made
# wherever the tape is (under fit, in Keras's train_step) when the path broke in the script
AT_BREAK_LINE = {Cause.INTEGER_PATH, Cause.DEAD_RELU, Cause.NO_GRADIENT_OP, Cause.STATE_BREAKS_PATH,
                 Cause.FROZEN_PYTHON_STATE, Cause.SATURATION}


def unwatched(c: Context) -> Repair:
    """`tape.watch(SOURCES)` as the first line of the `with` block (after the line that made them, if it is in the
    block); `watch_accessed_variables=False` dropped."""
    why = c.finding.get("facts", {}).get("why")
    if why == "frozen":  # `trainable = False`: unfrozen around the step that asks for the layer's gradients
        return Repair(frozen_toggled(c), c.subject())
    made = made_variable(c) if why == "tensor" else None
    if made:  # a tensor the program goes on to update in place as a weight: a tf.Variable, watched by the tape
        return Repair(made, c.subject())
    for made in c.source.nodes_on(c.broke, ast.Call) if why == "not trainable" else ():  # made so: made trainable
        off = [k for k in made.keywords if k.arg == "trainable" and getattr(k.value, "value", None) is False]
        if off and c.is_tf(made, "Variable"):  # (a Keras 3 variable cannot be watched: made trainable is the fix)
            return Repair([drop_argument(c.source, made, off[0])], c.subject())
    call, tape = c.gradient_call()
    if why == "not trainable" and isinstance(call.args[1], ast.Attribute):
        return not_used(c)  # model.variables holds the non-trainable ones (BatchNormalization's moving mean)
    block, item = c.tape_block(tape)
    made = item.context_expr
    if why == "watch_accessed_variables=False" and isinstance(made, ast.Call):
        # Keras 3 variables cannot be watched one by one: let the tape watch the variables it sees read
        for keyword in made.keywords:
            if keyword.arg == "watch_accessed_variables":
                return Repair([drop_argument(c.source, made, keyword)], c.subject())
    maker = c.source.statement_at(c.broke)  # a tensor the block itself makes (y1 = x * w1): watched once made
    made = maker in block.body and isinstance(maker, ast.Assign) and names_in(maker.targets) & names_in([call.args[1]])
    first, after = (maker.lineno, maker.end_lineno + 1) if made else (block.body[0].lineno,) * 2
    line = f"{c.source.indent(first)}{tape}.watch({c.source.code(call.args[1])}){c.source.newline}"
    at = c.source.after_line(after - 1)
    return Repair([Edit(at, at, line)], c.subject())


def softmax_sum(c: Context) -> Repair:
    """A softmax's outputs sum to 1, so the gradient of their sum is 0: ask for the top class's score instead (a sum
    made in the block: each row's top score); a softmax over one unit: a sigmoid (by_cause/activations.py)."""
    facts = c.finding.get("facts") or {}
    if facts.get("how") == "one_unit":  # a sequence's one-unit scores (attention): over the steps; else a sigmoid
        repair = activations.one_unit_over_steps if int(facts.get("rank") or 0) >= 3 else activations.one_unit_sigmoid
        return Repair(repair(c), c.subject())
    call, tape = c.gradient_call()
    block, _ = c.tape_block(tape)
    summed = activations.top_score(c, call.args[0], block) if isinstance(call.args[0], ast.Name) else None
    if summed:
        return Repair(summed, c.subject())
    if call.lineno <= block.end_lineno:
        raise NoRepair("pattern")
    return Repair(hoist(c, call, block, block.body[-1], f"{c.tf}.reduce_max({{}}, axis=-1)"), c.subject())


def no_gradient_op(c: Context) -> Repair:
    """A tape's target that is an argmax: its top score (discrete.argmax_target); a rounding, threshold or one-hot argmax on
    the way: a straight-through gradient (by_cause/discrete.py); every other op is changed by hand."""
    try:
        return Repair(discrete.argmax_target(c), c.subject())
    except NoRepair as refused:  # an argmax target used as an index too says so, when nothing passes straight through
        return Repair(discrete.straight_through(c, refused.reason), c.subject())


def tape_reused(c: Context) -> Repair:
    """`persistent=True` on the tape that was asked twice, and `del TAPE` after its last use."""
    _, tape = c.gradient_call()
    block, item = c.tape_block(tape)
    made = item.context_expr
    if not isinstance(made, ast.Call):
        raise NoRepair("pattern")
    release = release_after_last_use(c, block, tape)
    for keyword in made.keywords:
        if keyword.arg == "persistent":
            return Repair([Edit(*c.source.span(keyword.value), "True"), *release], c.subject())
    end = c.source.span(made)[1] - 1  # the closing parenthesis
    comma = ", " if made.args or made.keywords else ""
    return Repair([Edit(end, end, f"{comma}persistent=True"), *release], c.subject())


def stop_gradient(c: Context) -> Repair:
    """`tf.stop_gradient(x)` on the break line → `x` (and `x = tf.stop_gradient(x)` is deleted); a while_loop's
    `back_prop=False` is dropped."""
    statement = c.source.statement_at(c.broke)
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and c.is_tf(statement.value, "stop_gradient")
            and len(statement.value.args) == 1 and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value.args[0], ast.Name)
            and statement.value.args[0].id == statement.targets[0].id and statement.lineno == statement.end_lineno):
        start = c.source.line_start(statement.lineno)
        return Repair([Edit(start, start + len(c.source.lines[statement.lineno - 1]), "")], c.subject())
    edits = [Edit(*c.source.span(call), c.source.code(call.args[0]))
             for call in c.source.nodes_on(c.broke, ast.Call)
             if c.is_tf(call, "stop_gradient") and len(call.args) == 1 and call.lineno == c.broke]
    loops = [call for call in c.source.nodes_on(c.broke, ast.Call) if c.is_tf(call, "while_loop")] if not edits else []
    edits = edits or [drop_argument(c.source, call, keyword) for call in loops[:1] for keyword in call.keywords
                      if keyword.arg == "back_prop"]  # `tf.while_loop(…, back_prop=False)`: outputs stop_gradient'ed
    if not edits:
        raise NoRepair("pattern")
    return Repair(edits[:1], c.subject())


def cannot_watch(c: Context) -> Repair:
    """Keras 3's variable is not a tf.Variable: watch the tf.Variable it holds (`v.value`). A gradient call that
    raised making zeros for an unconnected Keras variable (unconnected_gradients=ZERO) has a source the target does
    not use: which one it should is the user's choice."""
    if (how := (c.finding.get("facts") or {}).get("how")) == "unconnected_zero":
        raise NoRepair("unconnected_zero")
    if how == "dtype":  # an integer tensor (pixels, counts): its float copy is watched, made just before
        return _float_copy(c)
    if "KerasTensor" in c.finding.get("facts", {}).get("error", ""):
        return _symbolic_watch(c)
    if "'Variable'" not in c.finding.get("facts", {}).get("error", ""):
        raise NoRepair("cannot_watch")
    for call in c.source.nodes_on(c.broke, ast.Call):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "watch" and len(call.args) == 1:
            argument = c.source.code(call.args[0])
            tape = func.value.id if isinstance(func.value, ast.Name) else None
            asked = [n.lineno for n in ast.walk(c.source.tree) if isinstance(n, ast.Call) and n.lineno > call.lineno
                     and isinstance(n.func, ast.Attribute) and n.func.attr in GRADIENT_CALLS
                     and isinstance(n.func.value, ast.Name) and n.func.value.id == tape]
            return Repair([Edit(*c.source.span(call.args[0]), f"{argument}.value")], argument,
                          min(asked, default=None))
    raise NoRepair("pattern")


def _symbolic_watch(c: Context) -> Repair:
    """`tape.watch(layer.output)` of a symbolic Keras tensor (Grad-CAM's conv layer): it holds no value and cannot
    be watched, and the values the model computes under the tape from it are recorded anyway: the watch line goes,
    when the gradient call after it asks for something else (`convOutputs`, what the model returned)."""
    statement = c.source.statement_at(c.broke)
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "watch"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and statement.lineno == statement.end_lineno):
        raise NoRepair("cannot_watch")
    if len(getattr(c.source.parents.get(statement), "body", ())) < 2:
        raise NoRepair("cannot_watch")  # the block's only statement: nothing would be left in it
    watched, tape = c.source.code(call.args[0]), call.func.value.id
    asked = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Call) and n.lineno > call.lineno and len(n.args) > 1
             and isinstance(n.func, ast.Attribute) and n.func.attr in GRADIENT_CALLS
             and isinstance(n.func.value, ast.Name) and n.func.value.id == tape]
    if not asked or watched in c.source.code(asked[0].args[1]):  # the gradient is asked of the Keras tensor itself
        raise NoRepair("cannot_watch")
    start = c.source.line_start(statement.lineno)
    end = c.source.after_line(statement.lineno)
    return Repair([Edit(start, end, "")], c.source.code(asked[0].args[1]), asked[0].lineno)


def _float_copy(c: Context) -> Repair:
    """`tape.watch(x)` of an integer tensor x (a name) that the block itself casts to a float (`tf.cast(x,
    tf.float32) / 255`: values, not ids for a lookup): `x = tf.cast(x, tf.float32)` on the line before, so the tape
    watches the float values the block computes with."""
    for call in c.source.nodes_on(c.broke, ast.Call):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "watch" and len(call.args) == 1 \
                and isinstance(call.args[0], ast.Name) and isinstance(call.func.value, ast.Name):
            name, at = call.args[0].id, c.source.line_start(c.broke)
            block, _ = c.tape_block(call.func.value.id)
            if not any(c.is_tf(n, "cast") and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == name
                       for n in ast.walk(block)):
                raise NoRepair("cannot_watch")
            line = f"{c.source.indent(c.broke)}{name} = {c.tf}.cast({name}, {c.tf}.float32){c.source.newline}"
            return Repair([Edit(at, at, line)], name)
    raise NoRepair("cannot_watch")


def not_used(c: Context) -> Repair:
    """`model.variables` → `model.trainable_variables` wherever the step names it; a layer frozen before its step
    unfrozen around it; a raw tf.Variable a layer holds (its only weight, when the list is empty) a keras.Variable."""
    facts = c.finding.get("facts", {})
    made = tracked(c) if facts.get("keras") == "untracked tf.Variable" or facts.get("sources") == "empty list" else []
    if facts.get("why") == "frozen" or made:
        return Repair(frozen_toggled(c) if facts.get("why") == "frozen" else made, c.subject())
    call, _ = c.gradient_call()
    sources = call.args[1]
    if not (isinstance(sources, ast.Attribute) and sources.attr in ("variables", "weights")):
        raise NoRepair("not_used")
    named, scope = c.source.code(sources), scope_of(c, call)
    edits = []
    for node in ast.walk(scope):  # the optimizer's zip(grads, model.variables) too: the pairs must stay aligned
        if isinstance(node, ast.Attribute) and node.attr == sources.attr and c.source.code(node) == named:
            edits.append(renamed(c.source, node, "trainable_variables"))
    return Repair(edits, c.subject().replace(named, named[:-len(sources.attr)] + "trainable_variables"))


def non_finite(c: Context) -> Repair:
    """`tf.where(c, f(x), y)` with a log, sqrt, exp or division in a branch → the operand guarded by a second where;
    with no such where, a sqrt, fractional pow, norm, angle or sinc at 0 gets a double where (by_cause/zero.py), a
    log given 0 its operand floored, a division by 0 made divide_no_nan (by_cause/floors.py).
    A NaN made by an overflow or by a value outside an
    op's domain (the finding's facts["how"], values.how_made) has none."""
    if (c.finding.get("facts") or {}).get("how") == "swapped":
        return Repair(zero.swapped_parameters(c), c.subject())
    if (c.finding.get("facts") or {}).get("how") == "grew":  # exploding: the optimizer clips them (by_cause/optimizer)
        return Repair(optimizer.clipped(c), c.subject())
    guarded = floors.where_branches(c) or floors.normalized(c)  # x / norm(x): l2_normalize, safe at 0
    if guarded:
        return Repair(guarded, c.subject())
    how = (c.finding.get("facts") or {}).get("how")
    if how in ("overflow", "half_overflow", "half_cast", "domain", "data"):  # not a NaN at 0: the double where would repair what did not break
        raise NoRepair(how)
    try:
        return Repair(zero.double_where(c), c.subject())
    except NoRepair as refused:
        if how not in ("zero", "given", "edge"):  # given: handed on after a step not seen made it; edge: acos at ±1
            raise
        for floor in (floors.floored, floors.no_nan):  # a log given 0 (acos given 1): its operand kept inside
            try:
                return Repair(floor(c), c.subject())
            except NoRepair:
                continue
        raise refused from None  # why the double where was refused says more than "no log or division here"


def integer_path(c: Context) -> Repair:
    """A variable made integer on the break line made float32; a threshold cast to float or a one-hot argmax given a
    straight-through gradient (by_cause/discrete.py); any other cast or argmax: by hand."""
    try:
        return Repair(discrete.floated(c), c.subject())
    except NoRepair:
        return Repair(discrete.straight_through(c, "integer_path"), c.subject())


def dead_relu(c: Context) -> Repair:
    """The ReLU on the break line made leaky (by_cause/activations.py)."""
    return Repair(activations.leaky(c), c.subject())


def underflow(c: Context) -> Repair:
    """The optimizer loss-scaled and the target scaled inside the tape (by_cause/optimizer.py)."""
    return Repair(optimizer.loss_scaled(c), c.subject())


def state_breaks_path(c: Context) -> Repair:
    """A Keras metric called as a loss made that loss; a value assigned to a variable and read back kept a tensor
    (by_cause/state.py)."""
    return Repair(state.kept_tensor(c), c.subject())


def frozen_python_state(c: Context) -> Repair:
    """The Python number a compiled step froze made a tf.Variable, each later setting an assign; a flag passed as an
    argument; weights unfrozen after fit traced its step: the model compiled again (by_cause/state.py)."""
    facts = c.finding.get("facts") or {}
    made = state.recompiled if facts.get("how") == "trainable" else flags.passed_as_argument if facts.get(
        "traced") in ("True", "False") else None  # a flag: passed as an argument
    return Repair(made(c), c.subject(), whole_run=True) if made else Repair(state.made_variable(c), c.subject())


def custom_gradient_signature(c: Context) -> Repair:
    """A layer's weight handed to a tf.custom_gradient function handed as a tensor, a tensor it was given by keyword
    handed by position, too few gradients returned padded with None (by_cause/variables.py); judged by the whole
    re-run, as the finding's line asks for no gradient."""
    return Repair(signature_edits(c), c.subject(), whole_run=True)


def leaves(c: Context) -> Repair:
    """A tf.numpy_function / py_function called directly, its body in TensorFlow ops; any other exit rewritten there."""
    return numpy_function(c) or leaves_tensorflow(c)


REPAIRS = {Cause.UNWATCHED: unwatched, Cause.OUTSIDE_TAPE: outside_tape, Cause.TAPE_REUSED: tape_reused,
           Cause.STOP_GRADIENT: stop_gradient, Cause.VARIABLE_REPLACED: variable_replaced,
           Cause.CANNOT_WATCH: cannot_watch, Cause.NOT_USED: not_used, Cause.SOFTMAX_SUM: softmax_sum,
           Cause.TF_GRADIENTS_EAGER: tf_gradients_eager, Cause.LEAVES_TENSORFLOW: leaves,
           Cause.NON_FINITE: non_finite, Cause.DEAD_RELU: dead_relu, Cause.INTEGER_PATH: integer_path,
           Cause.UNDERFLOW: underflow, Cause.NO_GRADIENT_OP: no_gradient_op,
           Cause.STATE_BREAKS_PATH: state_breaks_path, Cause.FROZEN_PYTHON_STATE: frozen_python_state,
           Cause.CUSTOM_GRADIENT_SIGNATURE: custom_gradient_signature,
           Cause.SATURATION: activations.rescaled_inputs}  # only where the data itself was too large for its layer


def repair(source: Source, finding: dict) -> Repair:
    cause = finding["cause"]
    if cause not in REPAIRS:  # no repair known
        raise NoRepair("no_repair")
    made = REPAIRS[cause](Context(source, finding))
    if source.module_alias("tensorflow") is None and any("tf." in edit.text for edit in made.edits):
        made.edits.insert(0, import_tensorflow(source))  # a Keras-only script: the op's module is imported too
    return made

