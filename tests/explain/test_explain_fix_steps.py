"""`explain --fix` without TensorFlow, for repairs that change a training step around the line that broke: a float16
underflow's loss scaling, a layer frozen before the step that trains it, an argmax asked for as a tape's target."""
from __future__ import annotations

import textwrap

import pytest

from gradtutor.explain.fix import plan as plans
from tests.explain.test_explain_fix import by_hand, patched

pytestmark = pytest.mark.unit

LOOP = """
    import keras
    import tensorflow as tf
    model = keras.Sequential([keras.layers.Dense(1)])
    {made}
    for step in range(3):
        with tf.GradientTape() as tape:
            prediction = model(x)
            {loss} = tf.reduce_mean(tf.square(prediction - y))
        grads = tape.gradient({loss}, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    """


@pytest.mark.parametrize("loss", ["loss", "total"])
@pytest.mark.parametrize("made, wrapped", [
    ("opt = keras.optimizers.Adam(1e-3)", "opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam(1e-3))"),
    ("opt = tf.keras.optimizers.SGD(learning_rate=0.1)",
     "opt = keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(learning_rate=0.1))"),
    # made already, its scale_loss left out: only the target is scaled
    ("opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam())",
     "opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam())"),
])
def test_an_underflow_in_a_loop_of_ones_own_scales_the_loss_inside_the_tape(tmp_path, loss, made, wrapped):
    out = patched(tmp_path, LOOP.format(made=made, loss=loss), "underflow", 9, broke=8).splitlines()
    assert out[3] == wrapped
    assert out[7:10] == [f"        {loss} = tf.reduce_mean(tf.square(prediction - y))",
                         f"        scaled_{loss} = opt.scale_loss({loss})",
                         f"    grads = tape.gradient(scaled_{loss}, model.trainable_variables)"]


@pytest.mark.parametrize("made", [
    "opt = keras.optimizers.Adam()\nopt = keras.optimizers.SGD()",  # made twice: which one applies is not known
    "opt = make_optimizer()",  # not a Keras class this can read
    "other = keras.optimizers.Adam()",  # the optimizer that applies is not made in the file
])
def test_an_underflow_whose_optimizer_cannot_be_read_is_left_by_hand(tmp_path, made):
    code = LOOP.format(made=made.replace("\n", "\n    "), loss="loss")
    line = 10 if "\n" in made else 9
    assert by_hand(tmp_path, textwrap.dedent(code).lstrip(), "underflow", line) == [
        ("underflow", "underflow")]


GAN = """
    import keras
    import numpy as np
    discriminator.compile(loss="binary_crossentropy", optimizer="adam")
    discriminator.trainable = False
    gan.compile(loss="binary_crossentropy", optimizer="adam")
    for epoch in range(3):
        fake = generator.predict(noise, verbose=0)
        d_real = discriminator.{train}(real, ones)
        d_fake = discriminator.{train}(fake, zeros)
        g_loss = gan.train_on_batch(noise, ones)
    """


@pytest.mark.parametrize("train", ["train_on_batch", "fit"])
def test_a_layer_frozen_before_its_own_step_is_made_trainable_around_that_step(tmp_path, train):
    out = patched(tmp_path, GAN.format(train=train), "not-used", 8, broke=4, why="frozen").splitlines()
    assert out[6:12] == ["    fake = generator.predict(noise, verbose=0)", "    discriminator.trainable = True",
                         f"    d_real = discriminator.{train}(real, ones)",
                         f"    d_fake = discriminator.{train}(fake, zeros)", "    discriminator.trainable = False",
                         "    g_loss = gan.train_on_batch(noise, ones)"]


def test_a_frozen_layer_asked_for_by_a_tape_is_unfrozen_around_the_tape_and_its_update(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        base.trainable = False
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, base.trainable_variables)
        opt.apply_gradients(zip(grads, base.trainable_variables))
        print(loss)
        """, "unwatched", 5, broke=2, why="frozen").splitlines()
    assert out[2:9] == ["base.trainable = True", "with tf.GradientTape() as tape:", "    loss = tf.reduce_mean(model(x))",
                        "grads = tape.gradient(loss, base.trainable_variables)",
                        "opt.apply_gradients(zip(grads, base.trainable_variables))", "base.trainable = False",
                        "print(loss)"]


@pytest.mark.parametrize("code, line", [
    ("d.trainable = False\ngan.fit(x, y)\n", 2),  # the step at the finding trains another model
    ("d.fit(x, y)\nd.trainable = False\n", 1),  # frozen after the step: not this repair's case
])
def test_a_frozen_layer_not_trained_at_the_findings_line_is_left_by_hand(tmp_path, code, line):
    script = tmp_path / "train.py"
    script.write_text(code)
    broke = 1 if code.startswith("d.trainable") else 2
    plan = plans.make(str(script), [{"file": str(script), "line": line, "call": "fit", "cause": "not-used",
                                     "broke_at": {"file": str(script), "line": broke, "code": ""},
                                     "facts": {"why": "frozen"}}])
    assert (plan.diff, [(m.cause, m.reason) for m in plan.manual]) == ("", [("not-used", "frozen")])


@pytest.mark.parametrize("argmax", ["tf.argmax(predictions, axis=-1)", "tf.math.argmax(predictions, 1)"])
def test_an_argmax_asked_for_as_the_target_becomes_the_top_score(tmp_path, argmax):
    out = patched(tmp_path, f"""
        import tensorflow as tf
        with tf.GradientTape() as tape:
            conv, predictions = cam(image)
            top = {argmax}
        grads = tape.gradient(top, conv)
        """, "no-gradient-op", 5, broke=4).splitlines()
    assert out[3] == "    top = " + argmax.replace("argmax", "reduce_max")


@pytest.mark.parametrize("written, reason", [
    ("top = tf.argmax(predictions, axis=-1)\n    score = predictions[:, top[0]]", "pattern"),  # an index too
    ("top = tf.argmax(predictions)", "pattern"),  # argmax's default axis is 0: reduce_max's would be all of them
    ("top = tf.argsort(predictions)", "no_repair"),  # any other op: what to differentiate instead is a choice
])
def test_an_argmax_used_otherwise_and_other_ops_without_gradient_are_left_by_hand(tmp_path, written, reason):
    code = f"import tensorflow as tf\nwith tf.GradientTape() as tape:\n    {written}\ngrads = tape.gradient(top, conv)\n"
    line = code.splitlines().index("grads = tape.gradient(top, conv)") + 1
    script = tmp_path / "train.py"
    script.write_text(code)
    plan = plans.make(str(script), [{"file": str(script), "line": line, "call": "gradient", "cause": "no-gradient-op",
                                     "broke_at": {"file": str(script), "line": 3, "code": ""}}])
    assert (plan.diff, [(m.cause, m.reason) for m in plan.manual]) == ("", [("no-gradient-op", reason)])


@pytest.mark.parametrize("update", ["b.assign_sub(0.1 * grads[1])",
                                    "for p, g in zip([w, b], grads):\n    p.assign_sub(0.1 * g)"])
def test_a_tensor_the_program_updates_in_place_is_made_a_variable_where_it_was_made(tmp_path, update):
    code = "import tensorflow as tf\nw = tf.Variable(tf.ones([3]))\nb = tf.zeros([3])\n" \
           "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(w * 2.0 + b)\n" \
           f"grads = tape.gradient(loss, [w, b])\n{update}\n"
    script = tmp_path / "train.py"
    script.write_text(code)
    plan = plans.make(str(script), [{"file": str(script), "line": 6, "call": "gradient", "cause": "unwatched",
                                     "sources": ["b"], "broke_at": {"file": str(script), "line": 3, "code": ""},
                                     "facts": {"why": "tensor"}}])
    assert plan.patched.splitlines()[2] == "b = tf.Variable(tf.zeros([3]))" and "watch" not in plan.patched


def test_a_tensor_never_updated_in_place_is_watched_as_before(tmp_path):
    out = patched(tmp_path, """
        import tensorflow as tf
        x = tf.zeros([3])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(x * x)
        print(tape.gradient(y, x))
        """, "unwatched", 5, broke=2, why="tensor").splitlines()
    assert out[1] == "x = tf.zeros([3])" and out[3] == "    tape.watch(x)"
