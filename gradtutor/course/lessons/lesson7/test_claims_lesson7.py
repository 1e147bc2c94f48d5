"""Does TensorFlow still behave the way lesson 7 says it does?

Each test re-runs one statement of solutions/lesson7/lesson7.ipynb (prose, printed numbers, plot captions,
"Check your understanding" answers) with the notebook's own inputs and seeds, so a TensorFlow or Keras
upgrade that changes it fails here instead of leaving the lesson wrong.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.tf

X = [-2.0, 0.0, 0.5, 3.0]  # the notebook's masked-log input


def grad(f, x, **kwargs):
    """d sum(f(x)) / dx as numpy, x a list or array (float32)."""
    x = tf.constant(x, dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = f(x)
    return tape.gradient(out, x, **kwargs).numpy()


def unsafe_masked_log(x):
    return tf.reduce_sum(tf.where(x > 0, tf.math.log(x), tf.zeros_like(x)))


def safe_masked_log(x):
    safe = tf.where(x > 0, x, tf.ones_like(x))
    return tf.reduce_sum(tf.where(x > 0, tf.math.log(safe), tf.zeros_like(x)))


# --- The symptom and section 1 ------------------------------------------------------
def test_question_example_value_is_right_and_gradient_nan():
    """'out is right — 10 — and its gradient is nan'; the dropped branch is inf."""
    a = tf.Variable(10.0)
    with tf.GradientTape() as tape:
        out = tf.where(a < 15.0, a, tf.math.pow(10.0, tf.math.exp(a)))
    assert float(out) == 10.0
    assert np.isnan(tape.gradient(out, a).numpy())
    assert np.isposinf(tf.math.pow(10.0, tf.math.exp(a)).numpy())


def test_one_where_log_is_nan_only_at_zero_and_the_double_where_is_finite():
    """y = log(0.5) + log(3) = 0.405 both ways; gradients [-0, nan, 2, 1/3] and [0, 0, 2, 1/3]."""
    for f in (unsafe_masked_log, safe_masked_log):
        assert float(f(tf.constant(X))) == pytest.approx(0.40546513)
    g = grad(unsafe_masked_log, X)
    assert np.isnan(g[1]) and g[0] == 0.0 and np.signbit(g[0])
    np.testing.assert_allclose(g[2:], [2.0, 1 / 3], rtol=1e-6)
    np.testing.assert_allclose(grad(safe_masked_log, X), [0.0, 0.0, 2.0, 1 / 3], rtol=1e-6)


def test_nan_reaches_the_weights_and_one_step_spreads_it():
    """A NaN from an unsafe masked log makes the layer's kernel gradient NaN; after one step, every loss is NaN."""
    keras.utils.set_random_seed(0)
    layer = keras.layers.Dense(8, activation="relu")
    x = tf.random.normal((16, 4))
    with tf.GradientTape() as tape:
        h = layer(x)
        loss = unsafe_masked_log(h)
    assert bool(tf.reduce_any(h == 0))  # relu makes exact zeros
    g_kernel, g_bias = tape.gradient(loss, [layer.kernel, layer.bias])
    assert np.isnan(g_kernel.numpy()).any() and np.isfinite(float(loss))
    keras.optimizers.SGD(0.1).apply_gradients([(g_kernel, layer.kernel), (g_bias, layer.bias)])
    assert np.isnan(layer(x).numpy()).all()
    assert np.isnan(np.clip(np.nan, -1.0, 1.0)) and np.isnan(tf.clip_by_value(np.nan, -1.0, 1.0).numpy())


def test_backward_with_a_zero_upstream_and_the_reviewers_sqrt_example():
    """sqrt [0, 0, 0]; log, 1/x NaN at 0; pow 0.5 at 0 and -1; tf.where(y > 0, tf.sqrt(y), y) is finite on TF 2.21."""
    s = [0.0, -1.0, 4.0]
    zeros = {"output_gradients": tf.zeros(3)}
    np.testing.assert_array_equal(grad(tf.sqrt, s, **zeros), [0.0, 0.0, 0.0])
    for f in (tf.math.log, lambda v: 1.0 / v):
        g = grad(f, s, **zeros)
        assert np.isnan(g[0]) and np.isfinite(g[1:]).all()
    g = grad(lambda v: v ** 0.5, s, **zeros)
    assert np.isnan(g[:2]).all() and g[2] == 0.0
    g = grad(lambda y: tf.where(y > 0, tf.sqrt(y), y), [-1.0, 0.0, 4.0])
    np.testing.assert_allclose(g, [1.0, 1.0, 0.25])


# --- Section 2 -----------------------------------------------------------------------
A = [[0.0, 0.0], [3.0, 4.0]]


@pytest.mark.parametrize("name, total", [
    ("tf.norm", lambda d: tf.reduce_sum(tf.norm(d, axis=1))),
    ("keras.ops.norm", lambda d: keras.ops.sum(keras.ops.norm(d, axis=1))),
    ("reduce_euclidean_norm", lambda d: tf.reduce_sum(tf.math.reduce_euclidean_norm(d, axis=1))),
    ("s ** 0.5", lambda d: tf.reduce_sum(tf.reduce_sum(d * d, axis=1) ** 0.5)),
    ("eps after the sqrt", lambda d: tf.reduce_sum(tf.sqrt(tf.reduce_sum(d * d, axis=1)) + 1e-8)),
])
def test_norms_at_zero_are_nan(name, total):
    """Row 0 (a == b) is NaN, row 1 is (0.6, 0.8)."""
    g = grad(total, A)
    assert np.isnan(g[0]).all(), name
    np.testing.assert_allclose(g[1], [0.6, 0.8], rtol=1e-6)


def test_closed_form_is_nan_and_eps_added_to_the_difference_moves_the_point():
    """d / tf.norm(d) is NaN on row 0; 'the gradient on row 0 becomes 1/sqrt(2) per entry instead of 0'."""
    d = tf.constant(A)
    assert np.isnan((d / tf.norm(d, axis=1, keepdims=True)).numpy()[0]).all()
    g = grad(lambda d: tf.reduce_sum(tf.norm(d + 1e-8, axis=1)), A)
    np.testing.assert_allclose(g[0], [2 ** -0.5] * 2, rtol=1e-6)


def test_clip_by_norm_of_zero_and_the_safe_forms_table():
    """clip_by_norm at 0 is finite; the clamp inside the sqrt and the double where give 0 on row 0; divide_no_nan; log1p."""
    np.testing.assert_array_equal(grad(lambda v: tf.clip_by_norm(v, 1.0), [0.0, 0.0, 0.0]), [1.0, 1.0, 1.0])
    for total in (lambda d: tf.reduce_sum(tf.sqrt(tf.maximum(tf.reduce_sum(d * d, axis=1), 1e-12))),
                  lambda d: tf.reduce_sum(tf.where(tf.reduce_sum(d * d, axis=1) > 0, tf.sqrt(
                      tf.where(tf.reduce_sum(d * d, axis=1) > 0, tf.reduce_sum(d * d, axis=1), 1.0)), 0.0))):
        np.testing.assert_allclose(grad(total, A), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-6)
    np.testing.assert_array_equal(tf.math.divide_no_nan(tf.constant([1.0, 0.0]), tf.constant([0.0, 0.0])).numpy(),
                                  [0.0, 0.0])
    tiny = tf.constant(1e-8)
    assert float(tf.math.log(1.0 + tiny)) == 0.0 and float(tf.math.log1p(tiny)) == pytest.approx(1e-8)


def test_entropy_naive_nan_and_xlogy_finite():
    """p log p: value NaN and gradient NaN at p = 0; xlogy: 0.5623 and a gradient of 0 there."""
    p = [0.0, 0.25, 0.75]
    assert np.isnan(float(-tf.reduce_sum(tf.constant(p) * tf.math.log(tf.constant(p)))))
    assert np.isnan(grad(lambda q: -tf.reduce_sum(q * tf.math.log(q)), p)[0])
    assert float(-tf.reduce_sum(tf.math.xlogy(tf.constant(p), tf.constant(p)))) == pytest.approx(0.56233513)
    g = grad(lambda q: -tf.reduce_sum(tf.math.xlogy(q, q)), p)
    assert g[0] == 0.0
    np.testing.assert_allclose(g[1:], -np.log(p[1:]) - 1, rtol=1e-6)


# --- Section 3 -----------------------------------------------------------------------
def test_sigmoid_rounds_to_exactly_one_and_zero():
    """'exactly 1.0 from about z = 16.6 on, and exactly 0.0 from about z = -87.4 down'."""
    ups = np.arange(15, 18, 0.01, dtype=np.float32)
    first_one = ups[np.argmax(tf.sigmoid(ups).numpy() == 1.0)]
    assert 16.55 < first_one < 16.7
    assert (tf.sigmoid(ups[ups >= first_one]).numpy() == 1.0).all()
    downs = -np.arange(80, 110, 0.1, dtype=np.float32)
    first_zero = downs[np.argmax(tf.sigmoid(downs).numpy() == 0.0)]
    assert -87.5 < first_zero < -87.3
    assert (tf.sigmoid(downs[downs <= first_zero]).numpy() == 0.0).all()


def test_bce_cell_numbers():
    z, y = [20.0, -20.0, 2.0], tf.constant([0.0, 1.0, 1.0])
    true = (tf.sigmoid(tf.constant(z)) - y).numpy() / 3
    np.testing.assert_allclose(true[:2], [1 / 3, -1 / 3], rtol=1e-6)
    probs = grad(lambda v: keras.losses.BinaryCrossentropy()(y, tf.sigmoid(v)), z)
    assert probs[0] == 0.0 and probs[1] == 0.0 and probs[2] == pytest.approx(true[2], rel=1e-5)
    by_hand = grad(lambda v: tf.reduce_mean(-y * tf.math.log(tf.sigmoid(v)) - (1 - y) * tf.math.log(1 - tf.sigmoid(v))), z)
    assert np.isnan(by_hand[0])
    np.testing.assert_allclose(by_hand[1:], true[1:], rtol=1e-5)
    np.testing.assert_allclose(grad(lambda v: keras.losses.BinaryCrossentropy(from_logits=True)(y, v), z), true, rtol=1e-5)
    assert float(tf.sigmoid(-20.0)) == pytest.approx(2.0611537e-09)


def test_softmax_crossentropy_saturates_too_and_the_textbook_formula_overflows():
    """'For classes, the same holds'; 'e^100 is inf in float32 and its gradient is inf / inf = nan'."""
    y = tf.constant([[0.0, 1.0]])
    probs = grad(lambda v: keras.losses.CategoricalCrossentropy()(y, tf.nn.softmax(v)), [[30.0, 0.0]])
    logits = grad(lambda v: keras.losses.CategoricalCrossentropy(from_logits=True)(y, v), [[30.0, 0.0]])
    np.testing.assert_array_equal(probs, [[0.0, 0.0]])
    np.testing.assert_allclose(logits, [[1.0, -1.0]], rtol=1e-6)
    assert np.isposinf(tf.exp(100.0).numpy())
    g = grad(lambda z: z - z * 1.0 + tf.math.log(1 + tf.exp(-z)), [-100.0])
    assert np.isnan(g[0])
    stable = grad(lambda z: tf.maximum(z, 0.0) - z * 1.0 + tf.math.log1p(tf.exp(-tf.abs(z))), [-100.0])
    assert stable[0] == pytest.approx(-1.0)


def test_keras_rescues_its_own_sigmoid_and_graph_mode():
    z, y = [20.0, -20.0, 2.0], tf.constant([0.0, 1.0, 1.0])
    true = (tf.sigmoid(tf.constant(z)) - y).numpy() / 3
    np.testing.assert_allclose(grad(lambda v: keras.losses.BinaryCrossentropy()(y, keras.activations.sigmoid(v)), z),
                               true, rtol=1e-5)

    @tf.function
    def in_graph(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            loss = keras.losses.BinaryCrossentropy()(y, tf.sigmoid(v))
        return tape.gradient(loss, v)

    np.testing.assert_allclose(in_graph(tf.constant(z)).numpy(), true, rtol=1e-5)


def test_plot_probabilities_gradient_collapses_past_16():
    """The plot's grid: from the logits it climbs to 1; from probabilities the last non-zero is at z = 16.2."""
    zs = tf.constant(np.linspace(-5.0, 40.0, 451, dtype=np.float32))
    zeros = tf.zeros_like(zs)
    probs = grad(lambda v: keras.losses.binary_crossentropy(zeros[:, None], tf.sigmoid(v)[:, None]), zs.numpy())
    logits = grad(lambda v: tf.nn.sigmoid_cross_entropy_with_logits(labels=zeros, logits=v), zs.numpy())
    assert float(zs.numpy()[probs > 0].max()) == pytest.approx(16.2, abs=1e-4)
    assert (probs[zs.numpy() > 16.25] == 0).all() and logits[-1] == 1.0


# --- Section 4 -----------------------------------------------------------------------
def mlp_gradient_norms(activation, depth=10, width=32, seed=0):
    """The notebook's function, unchanged."""
    keras.utils.set_random_seed(seed)
    hidden = [keras.layers.Dense(width, activation=activation) for _ in range(depth)]
    model = keras.Sequential([keras.Input(shape=(width,))] + hidden + [keras.layers.Dense(1)])
    x = tf.random.normal((64, width))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - 1.0))
    grads = tape.gradient(loss, [layer.kernel for layer in hidden])
    return np.array([float(tf.norm(g)) for g in grads])


def test_sigmoid_mlp_vanishes_tanh_and_relu_do_not():
    """Sigmoid: about 0.15 at layer 10, about 1e-7 at layer 1 (six orders); tanh and ReLU within one order."""
    sig = mlp_gradient_norms("sigmoid")
    assert sig[-1] == pytest.approx(0.15, abs=0.01) and 5e-8 < sig[0] < 2e-7
    assert 1e5 < sig[-1] / sig[0] < 1e7 and (np.diff(sig) > 0).all()
    for act in ("tanh", "relu"):
        norms = mlp_gradient_norms(act)
        assert norms.max() / norms.min() < 10, act


def test_dead_relu_units_get_exact_zeros_and_leaky_does_not():
    """14 of 16 ReLU units are dead, their 14 kernel columns exactly 0; LeakyReLU: every column non-zero."""
    keras.utils.set_random_seed(1)
    x_batch = tf.random.normal((256, 8))

    def unit_gradient_norms(activation):
        keras.utils.set_random_seed(1)
        layer = keras.layers.Dense(16, activation=activation, bias_initializer=keras.initializers.Constant(-3.0))
        with tf.GradientTape() as tape:
            h = layer(x_batch)
            loss = tf.reduce_mean(tf.square(tf.reduce_sum(h, axis=1) - 1.0))
        dead = tf.reduce_all(h == 0, axis=0).numpy()
        return tf.norm(tape.gradient(loss, layer.kernel), axis=0).numpy(), dead

    relu, dead = unit_gradient_norms("relu")
    assert dead.sum() == 14 and np.sum(relu == 0) == 14
    assert (relu[dead] == 0).all() and (relu[~dead] > 0).all()
    leaky, _ = unit_gradient_norms(keras.layers.LeakyReLU(negative_slope=0.01))
    assert (leaky > 0).all()


# --- Section 5 -----------------------------------------------------------------------
def test_check_numerics_raises_and_enable_check_numerics_names_the_log_and_passes_the_double_where():
    x = tf.constant(X)
    with pytest.raises(tf.errors.InvalidArgumentError, match="log of x : Tensor had Inf and NaN values"):
        tf.debugging.check_numerics(tf.math.log(x), "log of x")
    tf.debugging.enable_check_numerics()
    try:
        with pytest.raises(tf.errors.InvalidArgumentError) as caught:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = unsafe_masked_log(x)
            tape.gradient(y, x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = safe_masked_log(x)
        clean = tape.gradient(y, x).numpy()
    finally:
        tf.debugging.disable_check_numerics()
    message = str(caught.value)
    assert 'op "Log"' in message and "# of -Inf elements: 1" in message and "# of +NaN elements: 1" in message
    np.testing.assert_allclose(clean, [0.0, 0.0, 2.0, 1 / 3], rtol=1e-6)
    a = tf.constant(A)  # the norm: a clean forward pass, then +Inf from the backward op SqrtGrad
    tf.debugging.enable_check_numerics()
    try:
        with tf.GradientTape() as tape:
            tape.watch(a)
            total = tf.reduce_sum(tf.norm(a, axis=1))
        assert float(total) == 5.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r'(?s)op "SqrtGrad".*\+Inf elements: 1'):
            tape.gradient(total, a)
    finally:
        tf.debugging.disable_check_numerics()


# --- Check your understanding --------------------------------------------------------
def test_questions_1_and_2():
    """sinc with one where is NaN at 0, with a safe input 0; a norm loss with one exact match is NaN, clamped it is not."""
    xs = [0.0, 1.0]
    one = grad(lambda x: tf.where(x != 0, tf.sin(x) / x, 1.0), xs)
    assert np.isnan(one[0]) and np.isfinite(one[1])

    def safe(x):
        s = tf.where(x != 0, x, 1.0)
        return tf.where(x != 0, tf.sin(s) / s, 1.0)

    g = grad(safe, xs)
    assert g[0] == 0.0 and g[1] == pytest.approx(np.cos(1.0) - np.sin(1.0))
    pred, target = [[1.0, 2.0], [0.5, -1.0]], tf.constant([[1.0, 2.0], [0.0, 0.0]])
    g = grad(lambda p: tf.reduce_mean(tf.norm(p - target, axis=1)), pred)
    assert np.isnan(g[0]).all() and np.isfinite(g[1]).all()
    clamped = grad(lambda p: tf.reduce_mean(tf.sqrt(tf.maximum(tf.reduce_sum((p - target) ** 2, axis=1), 1e-12))), pred)
    assert np.isfinite(clamped).all() and (clamped[0] == 0).all()
