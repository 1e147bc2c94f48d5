"""Dead ReLUs (a layer's units give 0 for every input the step saw, so their weights get zero gradients): the ReLU on
the break line becomes a leaky ReLU, which passes a small slope where ReLU passes 0, so a unit no input turns on
still learns and can come back.

    Dense(16, activation="relu")  →  Dense(16, activation="leaky_relu")
    tf.nn.relu(h)                 →  tf.nn.leaky_relu(h)
    keras.layers.ReLU()           →  keras.layers.LeakyReLU()

This changes the model (a negative input now gives a small negative output, not 0); it is the usual remedy, and the
re-run says whether it was enough (a learning rate that threw the units off can throw leaky ones into NaN: then
the patch stays a suggestion). Lowering the learning rate or another initialisation stays the by-hand remedy.

A saturated layer that reads the data itself, data far beyond the unit scale its initial weights expect (the
finding's facts["input_max"]: gradtutor.evidence.symptoms.data_facts): a Rescaling layer put before it divides the
data by that magnitude, so the model scales whatever it is given, in training and after it.

    keras.Input((784,)),                              keras.Input((784,)),
    keras.layers.Dense(32, activation="sigmoid"),  →  keras.layers.Rescaling(1 / 65500),
                                                      keras.layers.Dense(32, activation="sigmoid"),
    h = layers.Dense(32, activation="tanh")(inputs)
                  →  h = layers.Dense(32, activation="tanh")(layers.Rescaling(1 / 65500)(inputs))

The script's own `model.layers[k]` reads are shifted by one (the Rescaling is the model's first layer now); a
functional model whose layers the script reads by index is left by hand. A saturation with no such evidence (large
weights, a loss given probabilities, a deep stack) stays by hand: which scale or initialisation the model needs is a
modelling choice. The re-run says whether the rescaled data is enough.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, Repair, assigned, renamed, restrung
from gradtutor.explain.fix.source import Edit

RELU_FUNCTIONS = ("relu",)  # tf.nn.relu, keras.activations.relu, keras.ops.relu: each module has its leaky_relu
ACTIVATION_LAYERS = ("Activation",)  # keras.layers.Activation("relu")
INPUTS = ("Input", "InputLayer")  # the layers that stand for a model's input


def leaky(c: Context) -> list[Edit]:
    """The edits making every ReLU written on the break line leaky; NoRepair when the line names none this rewrites
    (a `relu` imported by name, a ReLU layer given its own arguments, a ReLU inside a function defined elsewhere)."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        if call.lineno == c.broke:
            edits += _call(c, call)
        for keyword in call.keywords:
            if keyword.arg == "activation" and keyword.value.lineno == c.broke:
                edits += _named(c, keyword.value)
    if not edits:
        raise NoRepair("dead_relu")
    return sorted(set(edits), key=lambda edit: edit.start)


def _call(c: Context, call: ast.Call) -> list[Edit]:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return []
    if func.attr in RELU_FUNCTIONS and len(call.args) == 1 and not call.keywords:  # tf.nn.relu(h), ops.relu(h)
        return [renamed(c.source, func, "leaky_relu")]
    if func.attr == "ReLU" and not call.args and not call.keywords:  # a layer: keras.layers.ReLU()
        return [renamed(c.source, func, "LeakyReLU")]
    if func.attr in ACTIVATION_LAYERS and len(call.args) == 1:
        return _named(c, call.args[0])
    return []


def _named(c: Context, value: ast.AST) -> list[Edit]:
    """An activation given as "relu" or as the function tf.nn.relu / keras.activations.relu."""
    if isinstance(value, ast.Constant) and value.value == "relu":
        return [restrung(c.source, value, "leaky_relu")]
    if isinstance(value, ast.Attribute) and value.attr == "relu":
        return [renamed(c.source, value, "leaky_relu")]
    return []


# one unit's categorical losses → the binary one, which a one-unit sigmoid goes with
BINARY_LOSS = {"categorical_crossentropy": "binary_crossentropy", "sparse_categorical_crossentropy":
               "binary_crossentropy", "CategoricalCrossentropy": "BinaryCrossentropy",
               "SparseCategoricalCrossentropy": "BinaryCrossentropy"}


def one_unit_over_steps(c: Context) -> list[Edit]:
    """A softmax over the one unit of a sequence's scores (batch, steps, 1): attention weights, which belong over the
    steps (axis 1): `layers.Activation("softmax")` on the break line becomes `layers.Softmax(axis=1)`, a softmax
    call (`tf.nn.softmax(score)`) is given `axis=1`. NoRepair("pattern") for any other spelling."""
    for call in c.source.nodes_on(c.broke, ast.Call):
        func, args = call.func, call.args
        if isinstance(func, ast.Attribute) and func.attr == "Activation" and len(args) == 1 and \
                isinstance(args[0], ast.Constant) and args[0].value == "softmax":
            return [renamed(c.source, func, "Softmax"), Edit(*c.source.span(args[0]), "axis=1")]
        if (c.is_math(call, "softmax") or c.is_tf(call, "softmax")) and len(args) == 1 and not call.keywords:
            end = c.source.span(args[0])[1]
            return [Edit(end, end, ", axis=1")]
    raise NoRepair("pattern")


def one_unit_sigmoid(c: Context) -> list[Edit]:
    """A softmax over one unit (always 1): the layer's `activation="softmax"` on the break line made "sigmoid", the
    output's shape and the labels kept as they are; a categorical loss the script compiles with made binary (its
    value over one unit was 0 whatever the model gave). NoRepair("pattern") when the line gives no such string."""
    edits = [restrung(c.source, keyword.value, "sigmoid") for call in c.source.nodes_on(c.broke, ast.Call)
             for keyword in call.keywords if keyword.arg == "activation" and keyword.value.lineno == c.broke
             and isinstance(keyword.value, ast.Constant) and keyword.value.value == "softmax"]
    if len(edits) != 1:
        raise NoRepair("pattern")
    compiles = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "compile"]
    for keyword in (k for call in compiles[:1] if len(compiles) == 1 for k in call.keywords if k.arg == "loss"):
        loss = keyword.value.func if isinstance(keyword.value, ast.Call) else keyword.value
        if isinstance(loss, ast.Constant) and loss.value in BINARY_LOSS:
            edits.append(restrung(c.source, loss, BINARY_LOSS[loss.value]))
        elif isinstance(loss, ast.Attribute) and loss.attr in BINARY_LOSS:
            edits.append(renamed(c.source, loss, BINARY_LOSS[loss.attr]))
    return edits


def top_score(c: Context, target: ast.Name, block: ast.With) -> list[Edit] | None:
    """A target made in the tape's block as the sum (or mean) of a softmax's every output (`score =
    tf.reduce_sum(output)`, always the batch's size): the sum of each row's top score instead, `tf.reduce_max(output,
    axis=-1)`, whose gradient is the one a saliency map means. None when the target is not made so."""
    made = [s for s in block.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and s.targets[0].id == target.id]
    value = made[-1].value if made else None
    if not (c.is_math(value, "reduce_sum", "reduce_mean") and len(value.args) == 1 and not value.keywords):
        return None
    return [Edit(*c.source.span(value), f"{c.tf}.reduce_max({c.source.code(value.args[0])}, axis=-1)")]


def rescaled_inputs(c: Context) -> Repair:
    """The Rescaling put before the saturated layer made on the break line: in a Sequential's list, the first layer
    after its Input; or a layer called on a name bound to `keras.Input(…)`. NoRepair("saturation") otherwise."""
    largest = (c.finding.get("facts") or {}).get("input_max")
    if not largest:
        raise NoRepair("saturation")
    scale = f"{float(largest):g}"
    for call in c.source.nodes_on(c.broke, ast.Call):
        made = call.func if isinstance(call.func, ast.Call) else call  # LAYER(…)(inputs): the layer's making
        module = _layers_module(c, made)
        if module is None or made.lineno != c.broke:
            continue
        rescaling = f"{module}.Rescaling(1 / {scale})"
        if made is call and _first_in_sequential(c, call):
            start = c.source.span(call)[0]
            line_start = c.source.line_start(call.lineno)
            shifted = _indices_shifted(c, c.source.parents[c.source.parents[call]])
            if c.source.text[line_start:start].strip():  # not on a line of its own: before it on the same line
                return Repair([Edit(start, start, f"{rescaling}, "), *shifted], c.subject())
            text = f"{c.source.indent(call.lineno)}{rescaling},{c.source.newline}"
            return Repair([Edit(line_start, line_start, text), *shifted], c.subject())
        given = call.args[0] if made is not call and len(call.args) == 1 else None
        if isinstance(given, ast.Name) and _an_input(c, given) and ".layers[" not in c.source.text:
            return Repair([Edit(*c.source.span(given), f"{rescaling}({given.id})")], c.subject())
    raise NoRepair("saturation")


def _indices_shifted(c: Context, sequential: ast.Call) -> list[Edit]:
    """`model.layers[k]` read by the script, k one more: the Rescaling is the model's first layer now. NoRepair when
    the model has no name of its own and the script reads some model's layers by index (which one, unknown)."""
    assigned_to = c.source.parents.get(sequential)
    name = assigned_to.targets[0].id if isinstance(assigned_to, ast.Assign) and len(assigned_to.targets) == 1 and \
        isinstance(assigned_to.targets[0], ast.Name) else None
    if name is None:
        if ".layers[" in c.source.text:
            raise NoRepair("saturation")
        return []
    return [Edit(*c.source.span(n.slice), str(n.slice.value + 1)) for n in ast.walk(c.source.tree)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "layers"
            and isinstance(n.value.value, ast.Name) and n.value.value.id == name and isinstance(n.slice, ast.Constant)
            and type(n.slice.value) is int and n.slice.value >= 0]


def _layers_module(c: Context, made: ast.AST) -> str | None:
    """How the file names Keras's layers module for this layer's making (`keras.layers`, `layers`, `tf.keras.layers`);
    None when the layer's class was imported by name, or the call makes no layer."""
    if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Attribute) and made.func.attr[:1].isupper()):
        return None
    module = c.source.code(made.func.value)
    return module if module.rpartition(".")[2] == "layers" else None


def _first_in_sequential(c: Context, call: ast.Call) -> bool:
    """Is the call an element of `Sequential([…])`'s list with only Input layers before it?"""
    listed = c.source.parents.get(call)
    maker = c.source.parents.get(listed)
    if not (isinstance(listed, ast.List) and isinstance(maker, ast.Call) and maker.args and maker.args[0] is listed
            and c.source.code(maker.func).rpartition(".")[2] == "Sequential"):
        return False
    before = listed.elts[:listed.elts.index(call)]
    return all(isinstance(e, ast.Call) and c.source.code(e.func).rpartition(".")[2] in INPUTS for e in before)


def _an_input(c: Context, name: ast.Name) -> bool:
    """Was the name bound to `keras.Input(…)` (the model's input, data as given)?"""
    made = assigned(c, name)
    return made is not None and isinstance(made.value, ast.Call) and \
        c.source.code(made.value.func).rpartition(".")[2] in INPUTS
