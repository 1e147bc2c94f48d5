"""Does TensorFlow still behave the way lesson 5 says it does?

Each test re-runs one statement of solutions/lesson5/lesson5.ipynb (the prose,
the printed numbers, the plot's caption, the "Check your understanding"
answers) with the notebook's own inputs, so a TensorFlow or Keras upgrade that
changes it fails here instead of leaving the lesson wrong.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.framework import ops

pytestmark = pytest.mark.tf

VALUES = [0.2, 1.7, -0.6]  # the notebook's x in sections 1, 2, 3 and 5


def numpy_softplus(a):
    return np.logaddexp(0.0, a).astype(np.float32)


def soft_argmax(z, temperature):
    probs = tf.nn.softmax(z / temperature, axis=-1)
    return tf.reduce_sum(probs * tf.range(z.shape[-1], dtype=z.dtype), axis=-1)


def gumbel_softmax(z, temperature, seed):
    u = tf.random.stateless_uniform(tf.shape(z), seed=seed, minval=1e-6, maxval=1.0)
    return tf.nn.softmax((z - tf.math.log(-tf.math.log(u))) / temperature, axis=-1)


def argmax_loss(y_true, y_pred):
    predicted_class = tf.cast(tf.argmax(y_pred, axis=-1), tf.float32)
    return tf.reduce_mean(tf.square(predicted_class - tf.reshape(y_true, [-1])))


# --- The symptom -------------------------------------------------------------------
def test_fit_with_an_argmax_loss_has_no_gradients():
    """model.fit raises 'ValueError: No gradients provided for any variable.'; a tape gives [None, None]."""
    keras.utils.set_random_seed(0)
    features = np.random.normal(size=(64, 4)).astype("float32")
    labels = np.random.randint(0, 3, size=(64,)).astype("float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=argmax_loss)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        model.fit(features, labels, epochs=1, verbose=0)
    with tf.GradientTape() as tape:
        loss = argmax_loss(labels, model(features))
    assert np.isfinite(float(loss))
    assert tape.gradient(loss, model.trainable_variables) == [None, None]


# --- 1. integers -------------------------------------------------------------------
def test_argmax_and_int_casts_give_none():
    """argmax 1, int64, None; cast back to float: None; through int32: [0. 1. 0.] and None."""
    x = tf.Variable(VALUES)
    with tf.GradientTape(persistent=True) as tape:
        index = tf.argmax(x)
        index_as_float = tf.cast(index, tf.float32)
        truncated = tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert int(index) == 1 and index.dtype == tf.int64
    assert tape.gradient(index, x) is None and tape.gradient(index_as_float, x) is None
    assert truncated.numpy().tolist() == [0.0, 1.0, 0.0] and tape.gradient(truncated, x) is None


def test_gradient_registry_entries():
    """ArgMax, Round and Cast have gradient functions; Greater and PyFunc are registered as not
    differentiable (None); EagerPyFunc (tf.py_function) has one; DenseBincount has no entry at all."""
    for op_type in ("ArgMax", "Round", "Cast", "EagerPyFunc"):
        assert callable(ops._gradient_registry.lookup(op_type))
    for op_type in ("Greater", "Less", "Equal", "PyFunc"):
        assert ops._gradient_registry.lookup(op_type) is None
    with pytest.raises(LookupError):
        ops._gradient_registry.lookup("DenseBincount")


# --- 2. staircases -------------------------------------------------------------------
def test_round_floor_ceil_give_none_and_sign_gives_zeros():
    """round [0. 2. -1.] float32 -> None; floor [0. 1. -1.] -> None; ceil -> None; sign [1. 1. -1.] -> zeros."""
    x = tf.Variable(VALUES)
    with tf.GradientTape(persistent=True) as tape:
        rounded, floored, ceiled, signs = tf.round(x), tf.floor(x), tf.math.ceil(x), tf.sign(x)
    assert rounded.dtype == tf.float32 and rounded.numpy().tolist() == [0.0, 2.0, -1.0]
    assert floored.numpy().tolist() == [0.0, 1.0, -1.0]
    assert tape.gradient(rounded, x) is None and tape.gradient(floored, x) is None
    assert tape.gradient(ceiled, x) is None
    assert signs.numpy().tolist() == [1.0, 1.0, -1.0]
    assert tape.gradient(signs, x).numpy().tolist() == [0.0, 0.0, 0.0]


# --- 3. comparisons --------------------------------------------------------------------
def test_comparison_gives_none_and_where_passes_the_taken_branch():
    """x > 0.5: [False True False], count 1.0 -> None; tf.where(x > 0.5, x, 0): [0. 1. 0.]."""
    x = tf.Variable(VALUES)
    with tf.GradientTape(persistent=True) as tape:
        above = x > 0.5
        count_above = tf.reduce_sum(tf.cast(above, tf.float32))
        kept = tf.reduce_sum(tf.where(above, x, 0.0))
    assert above.dtype == tf.bool and above.numpy().tolist() == [False, True, False]
    assert float(count_above) == 1.0 and tape.gradient(count_above, x) is None
    assert tape.gradient(kept, x).numpy().tolist() == [0.0, 1.0, 0.0]


# --- 4. soft surrogates ------------------------------------------------------------------
def test_soft_argmax_values_and_gradients():
    """hard argmax 1; soft argmax 1.241, 1.059, 1.000 at T = 1, 0.3, 0.05; the last gradient rounds to 0
    at three decimals; the gradient is p_j (j - s) / T."""
    scores = tf.Variable([[0.5, 2.0, 1.2, -0.3]])
    assert int(tf.argmax(scores, axis=-1)[0]) == 1
    for temperature, shown in ((1.0, "1.241"), (0.3, "1.059"), (0.05, "1.000")):
        with tf.GradientTape() as tape:
            soft = soft_argmax(scores, temperature)
        grad = tape.gradient(soft, scores).numpy()[0]
        assert f"{float(soft[0]):.3f}" == shown
        p = tf.nn.softmax(scores / temperature).numpy()[0]
        np.testing.assert_allclose(grad, p * (np.arange(4) - float(soft[0])) / temperature, rtol=1e-4, atol=1e-6)
        if temperature == 0.05:
            assert np.all(np.abs(grad) < 5e-4) and np.any(grad != 0.0)
        else:
            assert np.max(np.abs(grad)) > 0.1


def test_argmax_of_a_softmax_and_reduce_max():
    """An argmax of a softmax is still None; reduce_max's gradient is 1 at the winner, 0 elsewhere."""
    scores = tf.Variable([[0.5, 2.0, 1.2, -0.3]])
    with tf.GradientTape(persistent=True) as tape:
        hard = tf.cast(tf.argmax(tf.nn.softmax(scores), axis=-1), tf.float32)
        best = tf.reduce_max(scores, axis=-1)
    assert tape.gradient(hard, scores) is None
    assert tape.gradient(best, scores).numpy().tolist() == [[0.0, 1.0, 0.0, 0.0]]


def test_plot_caption():
    """sigmoid(x / 0.25) differs from the step by more than 0.05 only for |x| < 0.74; its slope peaks at
    1 / (4 tau) = 1 at x = 0; the straight-through rounding equals round(x) with slope 1; the threshold
    and round(x) have no gradient (None)."""
    xs = tf.constant(np.linspace(-2.0, 2.0, 801), dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        step = tf.cast(xs > 0.0, tf.float32)
        soft = tf.sigmoid(xs / 0.25)
        rounded = tf.round(xs)
        ste = xs + tf.stop_gradient(tf.round(xs) - xs)
    far = np.abs(soft.numpy() - step.numpy()) > 0.05
    assert np.abs(xs.numpy()[far]).max() == pytest.approx(0.74, abs=0.01)
    slope = tape.gradient(soft, xs).numpy()
    assert slope.max() == pytest.approx(1.0, abs=1e-6) and xs.numpy()[slope.argmax()] == 0.0
    assert slope[0] < 2e-3 and slope[-1] < 2e-3  # almost nothing far from it (1.3e-3 at |x| = 2)
    assert np.array_equal(ste.numpy(), rounded.numpy())
    assert np.all(tape.gradient(ste, xs).numpy() == 1.0)
    assert tape.gradient(step, xs) is None and tape.gradient(rounded, xs) is None


def test_gumbel_softmax_draw():
    """Seed (5, 6), T = 0.5: the draw leans on class 1 (about 0.76) and its gradient is real; a lower
    temperature gives draws closer to one-hot; at T = 0.1 the same draw is one-hot to three decimals,
    with a gradient of norm about 0.0015."""
    z = tf.Variable([[0.5, 2.0, 1.2, -0.3]])
    index = tf.constant([0.0, 1.0, 2.0, 3.0])
    draws, norms = {}, {}
    for temperature in (1.0, 0.5, 0.1):
        with tf.GradientTape() as tape:
            draws[temperature] = gumbel_softmax(z, temperature, seed=(5, 6))
            picked = tf.reduce_sum(draws[temperature] * index)
        norms[temperature] = float(tf.norm(tape.gradient(picked, z)))
    probs = draws[0.5].numpy()[0]
    assert int(np.argmax(probs)) == 1 and round(float(probs[1]), 2) == 0.76
    assert norms[0.5] > 0.1
    peaks = [float(tf.reduce_max(draws[t])) for t in (1.0, 0.5, 0.1)]
    assert peaks == sorted(peaks)
    assert np.round(draws[0.1].numpy()[0], 3).tolist() == [0.0, 1.0, 0.0, 0.0]
    assert norms[0.1] == pytest.approx(0.0015, abs=0.0002)


# --- 5. straight-through -------------------------------------------------------------------
def test_straight_through_and_misplaced_stop_gradients():
    """Values [0. 2. -1.] twice; None for round, ones for the estimator; stop_gradient around everything:
    None; y + stop_gradient(round(y)) - y: the same value, gradient 0 (also question 3)."""
    y = tf.Variable(VALUES)
    with tf.GradientTape(persistent=True) as tape:
        plain = tf.round(y)
        straight_through = y + tf.stop_gradient(tf.round(y) - y)
        all_stopped = tf.stop_gradient(y + tf.round(y) - y)
        cancelled = y + tf.stop_gradient(tf.round(y)) - y
    assert plain.numpy().tolist() == straight_through.numpy().tolist() == [0.0, 2.0, -1.0]
    assert cancelled.numpy().tolist() == [0.0, 2.0, -1.0]
    assert tape.gradient(plain, y) is None
    assert tape.gradient(straight_through, y).numpy().tolist() == [1.0, 1.0, 1.0]
    assert tape.gradient(all_stopped, y) is None
    assert tape.gradient(cancelled, y).numpy().tolist() == [0.0, 0.0, 0.0]


def test_custom_gradient_straight_through_rounding():
    """A custom_gradient with forward tf.round(t) and gradient `lambda upstream: upstream` is the estimator."""
    @tf.custom_gradient
    def round_ste(t):
        return tf.round(t), lambda upstream: upstream

    y = tf.Variable(VALUES)
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(2.0 * round_ste(y))
    assert float(out) == 2.0
    assert tape.gradient(out, y).numpy().tolist() == [2.0, 2.0, 2.0]


# --- 6. outside TensorFlow -----------------------------------------------------------------
def test_numpy_function_and_py_function_gradients():
    """numpy_function: None; py_function with TF inside: sigmoid(x) = [0.26894143 0.5 0.8807971];
    py_function with NumPy inside: 0.0 with shape () for a source of shape (3,)."""
    x = tf.Variable([-1.0, 0.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        by_numpy = tf.numpy_function(numpy_softplus, [x], tf.float32)
        by_tf = tf.py_function(tf.math.softplus, [x], tf.float32)
        by_np_inside = tf.py_function(lambda a: numpy_softplus(a.numpy()), [x], tf.float32)
    assert tape.gradient(by_numpy, x) is None
    np.testing.assert_allclose(tape.gradient(by_tf, x).numpy(), [0.26894143, 0.5, 0.8807971], rtol=1e-6)
    silent = tape.gradient(by_np_inside, x)
    assert silent is not None and tuple(silent.shape) == () and float(silent) == 0.0


def test_bincount_lookup_errors():
    """Eager: 'LookupError: gradient registry has no entry for: DenseBincount'; tf.gradients in a graph:
    'No gradient defined for operation ...'."""
    x = tf.Variable([0.5, 1.5, 2.5])
    with tf.GradientTape() as tape:
        histogram = tf.math.bincount(tf.constant([0, 1, 1]), weights=x)
    with pytest.raises(LookupError, match="^gradient registry has no entry for: DenseBincount$"):
        tape.gradient(histogram, x)

    @tf.function(autograph=False)
    def graph_gradients():
        return tf.gradients(tf.math.bincount(tf.constant([0, 1, 1]), weights=x), x)

    with pytest.raises(LookupError, match="No gradient defined for operation"):
        graph_gradients()


def test_custom_gradient_gives_numpy_softplus_its_gradient():
    """'custom gradient' and '3 * sigmoid(x)' print the same numbers, [0.8068243 1.5 2.6423912]."""
    @tf.custom_gradient
    def softplus_with_gradient(t):
        value = tf.ensure_shape(tf.numpy_function(numpy_softplus, [t], tf.float32), t.shape)
        return value, lambda upstream: upstream * tf.sigmoid(t)

    x = tf.Variable([-1.0, 0.0, 2.0])
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(3.0 * softplus_with_gradient(x))
    grad = tape.gradient(out, x).numpy()
    np.testing.assert_array_equal(grad, (3.0 * tf.sigmoid(x)).numpy())
    np.testing.assert_allclose(grad, [0.8068243, 1.5, 2.6423912], rtol=1e-6)


def test_grad_that_ignores_upstream_is_right_only_for_an_all_ones_upstream():
    """Question 4: without the upstream factor, sum(f(x)) is still right, sum(w * f(x)) is not."""
    @tf.custom_gradient
    def forgetful(t):
        return tf.math.softplus(t), lambda upstream: tf.sigmoid(t)

    x = tf.constant([-1.0, 0.0, 2.0])
    w = tf.constant([2.0, -1.0, 0.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        summed = tf.reduce_sum(forgetful(x))
        weighted = tf.reduce_sum(w * forgetful(x))
    np.testing.assert_allclose(tape.gradient(summed, x).numpy(), tf.sigmoid(x).numpy(), rtol=1e-6)
    assert not np.allclose(tape.gradient(weighted, x).numpy(), (w * tf.sigmoid(x)).numpy())
