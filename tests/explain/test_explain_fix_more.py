"""`gradtutor explain --fix` on three shapes people write (the repairs and the verdicts, without TensorFlow):
a log of probabilities given a name first, a frozen flag that chooses the optimizer's variables, and a gradient
penalty whose output bias truly gets None once the path is recorded."""
from __future__ import annotations

import random
import textwrap

import pytest

from gradtutor.explain.fix import plan as plans
from gradtutor.explain.fix import show, verify
from tests.explain.test_explain_fix import patched

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("seed", range(3))
def test_a_log_of_named_softmax_probabilities_is_computed_from_the_logits(tmp_path, seed):
    """`probs = tf.nn.softmax(z)`, then `log(probs)`: a floor would give every clamped probability a slope of 0 (a
    saturated softmax then trains nothing); the logits get a name and the log becomes log_softmax of them."""
    draw = random.Random(seed)
    name = draw.choice(["probs", "Y", "y_conv", "p"])
    activation, stable = draw.choice([("tf.nn.softmax", "tf.nn.log_softmax"), ("tf.math.sigmoid", "tf.math.log_sigmoid"),
                                      ("keras.ops.softmax", "keras.ops.log_softmax")])
    axis = draw.choice(["", ", axis=-1"]) if "softmax" in activation else ""
    out = patched(tmp_path, f"""
        import keras
        import tensorflow as tf
        w, x, labels = tf.Variable(tf.ones((3, 4))), tf.ones((2, 3)), tf.ones((2, 4))
        for step in range(2):
            with tf.GradientTape() as tape:
                {name} = {activation}(tf.matmul(x, w) + 1.0{axis})
                loss = -tf.reduce_sum(labels * tf.math.log({name}))
            print(tape.gradient(loss, w))
        """, "non-finite", 8, 7, op="Log", how="zero")
    assert out.splitlines()[5:8] == [
        "        logits = tf.matmul(x, w) + 1.0", f"        {name} = {activation}(logits{axis})",
        f"        loss = -tf.reduce_sum(labels * {stable}(logits{axis}))"], seed


def test_named_logits_are_read_as_they_are_and_a_name_bound_twice_is_floored(tmp_path):
    code = textwrap.dedent("""
        import tensorflow as tf
        w = tf.Variable(tf.ones((3, 4)))
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.ones((2, 3)), w)
            probs = tf.nn.softmax(logits)
            loss = -tf.reduce_sum(tf.math.log(probs))
        print(tape.gradient(loss, w))
        """)
    assert "    loss = -tf.reduce_sum(tf.nn.log_softmax(logits))" in patched(
        tmp_path, code, "non-finite", 7, 6, op="Log", how="zero").splitlines()
    twice = code.replace("    loss =", "    probs = probs * 1.0\n    loss =")
    assert "    loss = -tf.reduce_sum(tf.math.log(tf.maximum(probs, 1e-7)))" in patched(
        tmp_path, twice, "non-finite", 8, 7, op="Log", how="zero").splitlines()


def test_probabilities_named_in_another_branch_are_floored(tmp_path):
    """Made in the `if` and logged in its `else`, the softmax did not run before the log: no name to compute from."""
    out = patched(tmp_path, """
        import tensorflow as tf
        w = tf.Variable(tf.ones(4))
        with tf.GradientTape() as tape:
            if w.shape[0] > 9:
                probs = tf.nn.softmax(w)
            else:
                loss = -tf.reduce_sum(tf.math.log(probs))
        print(tape.gradient(loss, w))
        """, "non-finite", 8, 7, op="Log", how="zero")
    assert "        loss = -tf.reduce_sum(tf.math.log(tf.maximum(probs, 1e-7)))" in out.splitlines()


FLAG_STEP = """
    import keras
    import tensorflow as tf
    body, head = keras.Sequential([keras.layers.Dense(3)]), keras.Sequential([keras.layers.Dense(1)])
    opt = keras.optimizers.Adam(1e-3)
    train_all = False
    @tf.function
    def step(x):
        if train_all:
            chosen = {all}
        else:
            chosen = {some}
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(head(body(x)))
        opt.apply_gradients(zip(tape.gradient(loss, chosen), chosen))
    for i in range(4):
        train_all = i > 1
        step(tf.ones((2, 3)))
    """


@pytest.mark.parametrize("seed", range(3))
def test_a_flag_that_chooses_the_optimizers_variables_has_the_optimizer_built_for_all_of_them(tmp_path, seed):
    """Keras 3 refuses an optimizer weights it was not built for; the new trace with the flag True hands it the body's
    too. Built for the union before the module first calls the step, it may be given either list."""
    draw = random.Random(seed)
    lists = ["body.trainable_variables + head.trainable_variables", "head.trainable_variables"]
    first, second = draw.sample(lists, 2)
    out = patched(tmp_path, FLAG_STEP.format(all=first, some=second), "frozen-python-state", 8, 8,
                  name="train_all", traced="False").splitlines()
    assert out[out.index("for i in range(4):") - 1] == \
        "opt.build(body.trainable_variables + head.trainable_variables)", seed
    assert "def step(x, train_all=False):" in out and "    step(tf.ones((2, 3)), train_all=train_all)" in out


def test_a_flag_that_chooses_no_variables_gets_no_build(tmp_path):
    code = FLAG_STEP.replace("chosen = {all}", "scale = 2.0").replace("chosen = {some}", "scale = 1.0") \
        .replace("tape.gradient(loss, chosen), chosen", "tape.gradient(loss, head.trainable_variables), "
                                                        "head.trainable_variables")
    out = patched(tmp_path, code, "frozen-python-state", 8, 8, name="train_all", traced="False")
    assert ".build(" not in out and "def step(x, train_all=False):" in out.splitlines()


def _penalty_plan(tmp_path, still: list[dict], gradients: list[list[str]]):
    """A repaired outside-tape finding for four sources, judged on a re-run that found `still` at its call."""
    script = tmp_path / "critic.py"
    script.write_text("import tensorflow as tf\nw = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n"
                      "    y = w * w\ng = y * 2.0\nprint(tape.gradient(g, w))\n")
    sources = ["d/kernel", "d/bias", "d_1/kernel", "d_1/bias"]
    plan = plans.make(str(script), [{"file": str(script), "line": 6, "call": "gradient", "cause": "outside-tape",
                                     "symptom": "none", "sources": sources,
                                     "broke_at": {"file": str(script), "line": 5, "code": ""}}])
    line = plan.moved(plan.items[0].line)
    found = [dict(f, file=str(script), line=line, symptom=f.get("symptom", "none")) for f in still]
    verify.judge(plan, {"script_exit": 0, "findings": found, "gradients": {str(line): gradients},
                        "central": {str(line): 1e-7}}, str(script))
    return plan


@pytest.mark.parametrize("bias", ["d_1/bias", "d_7/bias"])  # d_7: the copy re-run in the same process, renumbered
def test_a_source_the_target_never_reaches_may_stay_none_and_is_said(tmp_path, bias):
    """The penalty on an input gradient has no path to the output bias: once the rest is recorded, its None is the
    true answer (not-used, for fewer of the same sources), and the verdict says so."""
    plan = _penalty_plan(tmp_path, [{"cause": "not-used", "sources": [bias]}], [["ok", "ok", "ok", "none"]])
    item = plan.items[0]
    assert item.verified and item.after == {"cause": "not-used", "line": item.line, "sources": bias}
    assert f"{bias} is still None" in show.verification(item)


@pytest.mark.parametrize("still, gradients", [
    ([{"cause": "not-used", "sources": ["d/kernel", "d/bias", "d_1/kernel", "d_1/bias"]}], [["none"] * 4]),  # all
    ([{"cause": "not-used", "sources": ["d_1/bias"]}], [["ok", "ok", "none", "none"]]),  # a None it does not explain
    ([{"cause": "not-used", "sources": ["other/bias"]}], [["ok", "ok", "ok", "none"]]),  # not the finding's source
    ([{"cause": "not-known", "sources": ["d_1/bias"]}], [["ok", "ok", "ok", "none"]]),  # no cause for it
    ([{"cause": "outside-tape", "sources": ["d_1/bias"]}], [["ok", "ok", "ok", "none"]]),  # this cause, still there
])
def test_a_none_the_repair_did_not_account_for_is_not_verified(tmp_path, still, gradients):
    item = _penalty_plan(tmp_path, still, gradients).items[0]
    assert not item.verified and item.why in ("still_found", "none")


SATURATED = """
    import keras
    import numpy as np
    x = np.random.uniform(0.0, 65535.0, size=(64, 8)).astype("float32")
    model = keras.Sequential([
        keras.Input((8,)),
        keras.layers.Dense(4, activation="sigmoid"),
        keras.layers.Dense(1),
    ])
    model.compile(loss="mse")
    model.fit(x, x[:, :1], verbose=0)
    print(model.layers[0].kernel.shape, model.layers[-1].bias.shape)
    """


@pytest.mark.parametrize("largest", ["6.55e+04", "3.94e+03", "255"])
def test_a_layer_saturated_by_large_data_gets_a_rescaling_before_it_and_its_index_reads_shift(tmp_path, largest):
    out = patched(tmp_path, SATURATED, "saturation", 10, 6, input_max=largest).splitlines()
    scale = f"{float(largest):g}"
    assert out[4:7] == ["    keras.Input((8,)),", f"    keras.layers.Rescaling(1 / {scale}),",
                        '    keras.layers.Dense(4, activation="sigmoid"),']
    assert out[-1] == "print(model.layers[1].kernel.shape, model.layers[-1].bias.shape)"


def test_a_functional_layer_given_the_input_gets_it_rescaled(tmp_path):
    code = """
        import keras
        inputs = keras.Input((8,))
        hidden = keras.layers.Dense(4, activation="tanh")(inputs)
        model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
        """
    out = patched(tmp_path, code, "saturation", 3, 3, input_max="4.1e+03").splitlines()
    assert out[2] == 'hidden = keras.layers.Dense(4, activation="tanh")(keras.layers.Rescaling(1 / 4100)(inputs))'


@pytest.mark.parametrize("facts, code", [
    ({}, SATURATED),  # no evidence that the data is too large: the weights, the loss, the depth are a choice
    ({"input_max": "4.1e+03"}, SATURATED.replace("keras.Input((8,)),\n        keras.layers.Dense(4", "keras.layers.Dense(2),\n        keras.layers.Dense(4")),  # not the first layer
    ({"input_max": "4.1e+03"}, """
        import keras
        inputs = keras.Input((8,))
        hidden = keras.layers.Dense(4, activation="tanh")(inputs)
        model = keras.Model(inputs, hidden)
        print(model.layers[1])
        """),  # a functional model read by index: which index moves is not followed
])
def test_a_saturation_without_a_layer_reading_large_data_keeps_the_by_hand_reason(tmp_path, facts, code):
    from tests.explain.test_explain_fix import by_hand

    line = 6 if "Sequential" in code else 3
    assert by_hand(tmp_path, textwrap.dedent(code).lstrip(), "saturation", line, **facts) == [
        ("saturation", "saturation")]


@pytest.mark.parametrize("norm, made", [
    ("tf.norm(z, axis=1, keepdims=True)", "tf.math.l2_normalize(z, axis=1)"),
    ("tf.linalg.norm(z, axis=-1, keepdims=True)", "tf.math.l2_normalize(z, axis=-1)"),
    ("tf.norm(z)", "tf.math.l2_normalize(z)"),
])
def test_a_vector_divided_by_its_own_norm_is_l2_normalized(tmp_path, norm, made):
    out = patched(tmp_path, f"""
        import tensorflow as tf
        z = tf.Variable(tf.zeros((2, 3)))
        with tf.GradientTape() as tape:
            unit = z / {norm}
        print(tape.gradient(tf.reduce_sum(unit), z))
        """, "non-finite", 5, 4, op="Sqrt", how="zero")
    assert out.splitlines()[3] == f"    unit = {made}"


@pytest.mark.parametrize("norm", ["tf.norm(z, axis=1)", "tf.norm(z, ord=1, axis=1, keepdims=True)", "tf.norm(w, axis=1, keepdims=True)"])
def test_another_norm_or_numerator_is_not_l2_normalized(tmp_path, norm):
    out = patched(tmp_path, f"""
        import tensorflow as tf
        z = w = tf.Variable(tf.zeros((2, 3)))
        with tf.GradientTape() as tape:
            unit = z / {norm}
        print(tape.gradient(tf.reduce_sum(unit), z))
        """, "non-finite", 5, 4, op="Sqrt", how="zero")
    assert "l2_normalize" not in out


@pytest.mark.parametrize("returned, padded", [
    ("return -dy * l", "return -dy * l, None"),
    ("return (-dy * l,)", "return (-dy * l, None)"),
])
def test_a_gradient_function_returning_too_few_gradients_gets_none_for_the_rest(tmp_path, returned, padded):
    """A gradient reversal's `flip(x, l)`: one gradient per input, so the strength `l` gets None."""
    code = f"""
        import tensorflow as tf
        @tf.custom_gradient
        def flip(x, l):
            def grad(dy):
                {returned}
            return tf.identity(x), grad
        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = flip(w * 2.0, tf.constant(0.5))
        print(tape.gradient(y, w))
        """
    out = patched(tmp_path, code, "custom-gradient-signature", 10, 5,
                  error="ValueError: custom_gradient function expected to return 2 gradients, but returned 1 instead.")
    assert out.splitlines()[4] == f"        {padded}"


def test_a_gradient_function_returning_as_many_keeps_the_by_hand_reason(tmp_path):
    from tests.explain.test_explain_fix import by_hand

    code = ("import tensorflow as tf\n@tf.custom_gradient\ndef f(x):\n    def grad(dy):\n        return dy\n"
            "    return x, grad\n")
    assert by_hand(tmp_path, code, "custom-gradient-signature", 5, error="too few gradients") == [
        ("custom-gradient-signature", "pattern")]
