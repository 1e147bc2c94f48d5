"""Does TensorFlow still behave the way lesson 3 says it does?

Each test re-runs one statement of solutions/lesson3/lesson3.ipynb (the prose,
the printed numbers, the plot's captions, the "Check your understanding"
answers) with the notebook's own seeds, so a TensorFlow or Keras upgrade that
changes it fails here instead of leaving the lesson wrong.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf

FLOAT32_ULP_AT_1 = float(np.finfo(np.float32).eps)  # 1.1920929e-07


def question_model(seed):
    """The question's code with one seed, as in the notebook: Flatten -> Dense(10, softmax)."""
    keras.utils.set_random_seed(seed)
    x_in = keras.layers.Input(shape=(28, 28))
    probs = keras.layers.Dense(10, activation="softmax")(keras.layers.Flatten()(x_in))
    model = keras.Model(x_in, probs)
    inp = tf.Variable(np.random.random((1, 28, 28)), dtype=tf.float32, name="input")
    return model, inp


def max_abs(t):
    return float(tf.reduce_max(tf.abs(t)))


@pytest.fixture(scope="module")
def seed0():
    """The notebook's model, input and target (seed 0), and the probabilities."""
    model, inp = question_model(0)
    model.compile(loss="categorical_crossentropy", optimizer="sgd")
    target = tf.constant([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]], dtype=tf.float32)
    return model, inp, target


@pytest.fixture(scope="module")
def sum_gradients():
    """For seeds 0..9: (max |d result / d inp|, float32 sum of the probabilities)."""
    out = {}
    for seed in range(10):
        model, inp = question_model(seed)
        with tf.GradientTape() as tape:
            result = model(inp, training=False)
        out[seed] = (max_abs(tape.gradient(result, inp)), float(tf.reduce_sum(result).numpy()))
    return out


# --- The symptom ----------------------------------------------------------------
def test_seed_code_gradient_is_exactly_zero(seed0):
    """The question's code, seed 0: 'tf.Tensor(0.0, ...)', exactly 0 for all 784 pixels."""
    model, inp, _ = seed0
    with tf.GradientTape(persistent=True) as g:
        g.watch(inp)
        result = model(inp, training=False)
    grad = g.gradient(result, inp)
    assert grad is not None and tuple(grad.shape) == (1, 28, 28)
    assert np.count_nonzero(grad.numpy()) == 0


def test_ten_seeds_seven_zero_three_tiny(sum_gradients):
    """'Seven seeds give exactly 0, and seeds 6, 7 and 9 give about 8e-9, 8e-9 and 3e-9'
    (printed 8e-09, 8.2e-09, 2.8e-09); the question's '< 1e-7'."""
    zero = {s for s, (g, _) in sum_gradients.items() if g == 0.0}
    assert zero == {0, 1, 2, 3, 4, 5, 8}
    for seed, claimed in ((6, 8e-9), (7, 8e-9), (9, 3e-9)):
        assert sum_gradients[seed][0] == pytest.approx(claimed, rel=0.15)
        assert sum_gradients[seed][0] < 1e-7


# --- 1. The gradient of a non-scalar target is the gradient of its sum -----------
def test_stack_gradient_is_sum_of_derivatives():
    """y = [x, 2x, 3x]: tape.gradient gives 6.0 = 1 + 2 + 3."""
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.stack([x, 2 * x, 3 * x])
    assert float(tape.gradient(y, x)) == 6.0


def test_output_gradient_equals_sum_gradient_bit_for_bit(seed0):
    """'identical: True' for grad(result) and grad(reduce_sum(result)), and for an all-ones upstream (question 2)."""
    model, inp, _ = seed0
    for seed in (0, 6):  # one exact-zero seed, one round-off seed
        model, inp = question_model(seed) if seed else (model, inp)
        with tf.GradientTape(persistent=True) as tape:
            result = model(inp, training=False)
            total = tf.reduce_sum(result)
        a, b = tape.gradient(result, inp), tape.gradient(total, inp)
        c = tape.gradient(result, inp, output_gradients=tf.ones((1, 10)))
        assert bool(tf.reduce_all(a == b)) and bool(tf.reduce_all(a == c))


# --- 2. A softmax always sums to one -------------------------------------------
def test_seed0_probabilities_sum_to_exactly_one(seed0):
    """'sum of the 10 probabilities: 1.0'."""
    model, inp, _ = seed0
    assert float(tf.reduce_sum(model(inp, training=False))) == 1.0


def test_round_off_explains_the_tiny_gradient():
    """Seed 6: float32 sum 1.0000001, 1 - sum = -1.1920929e-07 (one unit), and the tape's
    gradient is exactly (1 - sum) * W p: both print 7.95476928772132e-09."""
    model, inp = question_model(6)
    with tf.GradientTape() as tape:
        p = model(inp, training=False)
    grad = tape.gradient(p, inp)
    s = tf.reduce_sum(p)
    assert float(1.0 - s) == -FLOAT32_ULP_AT_1
    predicted = (1.0 - s) * tf.linalg.matvec(model.layers[-1].kernel, p[0])
    assert max_abs(grad) == pytest.approx(max_abs(predicted), rel=1e-5)
    np.testing.assert_allclose(grad.numpy().ravel(), predicted.numpy(), rtol=1e-4, atol=1e-12)
    assert max_abs(grad) == pytest.approx(8e-9, rel=0.05)


def test_zero_exactly_when_the_float32_sum_is_one(sum_gradients):
    """'either exactly 1.0 — then every gradient is exactly 0 — or one or two units off'."""
    for grad, total in sum_gradients.values():
        assert (grad == 0.0) == (total == 1.0)
        assert abs(1.0 - total) <= 2 * FLOAT32_ULP_AT_1 + 1e-12


# --- Fix 1: the loss -------------------------------------------------------------
def test_loss_gradient_is_about_0_12(seed0):
    """'loss: [2.821377]', 'max |d loss / d inp|' about 0.12 (printed 0.1234956830739975);
    the loss has shape (1,), one per example, and the class CategoricalCrossentropy() agrees for a batch of one."""
    model, inp, target = seed0
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
        loss = keras.losses.categorical_crossentropy(target, result)
        mean_loss = keras.losses.CategoricalCrossentropy()(target, result)
    grad = tape.gradient(loss, inp)
    assert tuple(loss.shape) == (1,)
    assert float(loss[0]) == pytest.approx(2.821377, rel=1e-5)
    assert round(max_abs(grad), 2) == 0.12
    np.testing.assert_allclose(tape.gradient(mean_loss, inp).numpy(), grad.numpy(), rtol=1e-5, atol=1e-8)


def test_stepping_against_the_loss_gradient_raises_the_target_probability(seed0):
    """'step inp against this gradient, inp.assign_sub(lr * loss_grad)' moves toward the target."""
    model, inp, target = seed0
    x = tf.Variable(inp)
    with tf.GradientTape() as tape:
        before = model(x, training=False)
        loss = keras.losses.categorical_crossentropy(target, before)
    x.assign_sub(0.1 * tape.gradient(loss, x))
    after = model(x, training=False)
    assert float(after[0, 0]) > float(before[0, 0])


# --- Fix 2: one class, sliced inside the tape ---------------------------------------
def test_class0_gradient_inside_outside_argmax_onehot(seed0):
    """'max |d p0 / d inp|' about 0.0074 with p0 about 0.06; after the block: None; argmax: None;
    a one-hot output_gradients: 'same as the slice: True'."""
    model, inp, _ = seed0
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
        p0 = result[:, 0]
        chosen = tf.cast(tf.argmax(result, axis=1), tf.float32)
    p0_grad = tape.gradient(p0, inp)
    assert round(max_abs(p0_grad), 4) == 0.0074
    assert round(float(p0[0]), 2) == 0.06
    assert tape.gradient(result[:, 0], inp) is None
    assert tape.gradient(chosen, inp) is None
    picked = tape.gradient(result, inp, output_gradients=tf.one_hot([0], 10))
    assert bool(tf.reduce_all(picked == p0_grad))


def test_loss_gradient_is_minus_p0_gradient_over_p0(seed0):
    """Question 3: the loss is -log p0, so d loss/dx = -(1/p0) d p0/dx."""
    model, inp, target = seed0
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
        p0 = result[:, 0]
        loss = keras.losses.categorical_crossentropy(target, result)
    expected = -tape.gradient(p0, inp) / p0[0]
    np.testing.assert_allclose(tape.gradient(loss, inp).numpy(), expected.numpy(), rtol=1e-4, atol=1e-7)


# --- Fix 3: the logits ---------------------------------------------------------------
def test_logits_twin(seed0):
    """The twin without softmax: softmax(z) - result is 0.0; d sum(z) about 0.53 (printed 0.5275);
    d z0 / d inp is column 0 of the kernel (True); opposite signs on about 8% of the pixels."""
    model, inp, _ = seed0
    dense = model.layers[-1]
    logits_layer = keras.layers.Dense(10)
    logits_model = keras.Sequential([keras.Input(shape=(28, 28)), keras.layers.Flatten(), logits_layer])
    logits_layer.set_weights(dense.get_weights())
    with tf.GradientTape(persistent=True) as tape:
        z = logits_model(inp, training=False)
        z0 = z[:, 0]
        p0 = model(inp, training=False)[:, 0]
    assert max_abs(tf.nn.softmax(z) - model(inp)) == 0.0
    assert round(max_abs(tape.gradient(z, inp)), 2) == 0.53
    z0_grad, p0_grad = tape.gradient(z0, inp), tape.gradient(p0, inp)
    assert max_abs(z0_grad) == pytest.approx(0.0869, abs=1e-4)
    assert np.array_equal(z0_grad.numpy().ravel(), dense.kernel.numpy()[:, 0])
    disagree = np.mean(np.sign(p0_grad.numpy()) != np.sign(z0_grad.numpy()))
    assert f"{disagree:.0%}" == "8%"


# --- Every class at once ---------------------------------------------------------------
def test_jacobian_maps(seed0):
    """'jacobian shape: (1, 10, 1, 28, 28)'; map 0 matches the slice within round-off (printed 1.2e-9);
    max |map| about 0.02; the 10 maps add up to about 5e-9; the likeliest classes, 2 and 8
    (p about 0.24 and 0.19), have the strongest maps."""
    model, inp, _ = seed0
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
        p0 = result[:, 0]
    jac = tape.jacobian(result, inp)
    assert tuple(jac.shape) == (1, 10, 1, 28, 28)
    maps = jac[0, :, 0]
    assert max_abs(maps[0] - tape.gradient(p0, inp)[0]) < 1e-8
    assert round(max_abs(maps), 2) == 0.02
    assert max_abs(tf.reduce_sum(maps, axis=0)) == pytest.approx(5e-9, rel=0.1)
    probs = result.numpy()[0]
    assert (round(float(probs[2]), 2), round(float(probs[8]), 2)) == (0.24, 0.19)
    strength = tf.reduce_max(tf.abs(maps), axis=[1, 2]).numpy()
    assert set(np.argsort(strength)[-2:]) == {2, 8} == set(np.argsort(probs)[-2:])


def test_batch_jacobian_of_a_batch_of_one(seed0):
    """'tape.batch_jacobian(result, inp) ... returns (batch, 10, 28, 28)'; with a batch of one,
    jac[0, :, 0] is the same thing."""
    model, inp, _ = seed0
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
    batch = tape.batch_jacobian(result, inp)
    assert tuple(batch.shape) == (1, 10, 28, 28)
    np.testing.assert_allclose(batch[0].numpy(), tape.jacobian(result, inp)[0, :, 0].numpy(), rtol=1e-6, atol=1e-12)


def test_batch_of_two_jacobian_shapes():
    """Question 4: jacobian (2, 10, 2, 28, 28) with all-zero cross-example blocks, batch_jacobian (2, 10, 28, 28)."""
    model, _ = question_model(0)
    inp = tf.Variable(np.random.default_rng(0).random((2, 28, 28)), dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        result = model(inp, training=False)
    jac = tape.jacobian(result, inp)
    assert tuple(jac.shape) == (2, 10, 2, 28, 28)
    assert max_abs(jac[0, :, 1]) == 0.0 and max_abs(jac[1, :, 0]) == 0.0
    assert max_abs(jac[1, :, 1]) > 1e-3
    batch = tape.batch_jacobian(result, inp)
    assert tuple(batch.shape) == (2, 10, 28, 28)
    # the same numbers up to float32 round-off: the two routes sum in different orders (seen: 8e-10 apart)
    np.testing.assert_allclose(batch[1].numpy(), jac[1, :, 1].numpy(), rtol=1e-6, atol=1e-8)


# --- Check your understanding -------------------------------------------------------
def test_single_sigmoid_output_has_a_real_gradient():
    """Question 1: a Dense(1, sigmoid) output is not tied to a constant, so its gradient is not ~0."""
    keras.utils.set_random_seed(0)
    x_in = keras.layers.Input(shape=(28, 28))
    model = keras.Model(x_in, keras.layers.Dense(1, activation="sigmoid")(keras.layers.Flatten()(x_in)))
    inp = tf.Variable(np.random.random((1, 28, 28)), dtype=tf.float32)
    with tf.GradientTape() as tape:
        out = model(inp, training=False)
    assert max_abs(tape.gradient(out, inp)) > 1e-3


def test_three_class_softmax_ones_versus_one_hot_upstream():
    """Question 2: all-ones output_gradients gives ~0 (the sum is 1); [[0, 0, 1]] gives the slice [:, 2]."""
    keras.utils.set_random_seed(0)
    x_in = keras.layers.Input(shape=(5,))
    model = keras.Model(x_in, keras.layers.Dense(3, activation="softmax")(x_in))
    x = tf.Variable(np.random.random((1, 5)), dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        probs = model(x, training=False)
        p2 = probs[:, 2]
    assert max_abs(tape.gradient(probs, x, output_gradients=tf.ones((1, 3)))) < 1e-6
    picked = tape.gradient(probs, x, output_gradients=tf.constant([[0.0, 0.0, 1.0]]))
    assert max_abs(picked) > 1e-3
    assert bool(tf.reduce_all(picked == tape.gradient(p2, x)))
