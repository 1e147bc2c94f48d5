"""Do lesson 7's reference gradients agree with computations that use no GradientTape?

Closed forms, in float64 numpy from the built inputs:

    safe_distance  d/da sum_i ||a_i - b_i||        = (a_i - b_i) / ||a_i - b_i||, and 0 on rows with a_i == b_i
    masked_log     d/dx sum where(x > 0, log x, 0) = 1/x where x > 0, and 0 elsewhere
    stable_bce     d/dz mean BCE(sigmoid(z), y)     = (sigmoid(z) - y) / N
    layer_norms    ||d MSE / d W_l|| per Dense layer, by finite differences of a float64 numpy forward pass

Away from the points where the function has a kink or a pole (equal rows, x = 0),
each closed form is checked against central finite differences of a float64
forward pass; at those points the closed form's value (0) is the convention the
lesson states, checked directly. The references run in float32, so they are
compared with the exercises' own tolerance, rtol=1e-4 and atol=1e-6.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of

pytestmark = pytest.mark.tf

EX = exercises_of("lesson7")
RTOL, ATOL = 1e-4, 1e-6
FD_STEP = 1e-6
FD_RTOL, FD_ATOL = 1e-6, 1e-7  # float64 central differences: error ~ step**2 + 1e-16 * |f| / step


def fd_gradient(f, x, entries):
    """Central differences of a scalar float64 function f at x, for the given flat entries."""
    out = np.zeros_like(x)
    for i in entries:
        step = np.zeros_like(x)
        step.flat[i] = FD_STEP
        out.flat[i] = (f(x + step) - f(x - step)) / (2 * FD_STEP)
    return out


def assert_reference(got, want, like):
    assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
    assert got.dtype == tf.float32 and tuple(got.shape) == tuple(like.shape)
    assert np.isfinite(got.numpy()).all()
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)


def f64(t):
    return t.numpy().astype(np.float64)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_distance_gradient_is_the_unit_difference(seed):
    inputs = EX["safe_distance"].build(seed)
    a, b = f64(inputs["a"]), f64(inputs["b"])
    diff = a - b
    norms = np.linalg.norm(diff, axis=1)
    equal = norms == 0
    assert equal.any() and (a[equal] == b[equal]).all() and (a[equal] == 0).all(axis=1).any()
    assert norms[~equal].min() > 1e-3  # the other rows are far from the kink
    want = np.zeros_like(a)
    want[~equal] = diff[~equal] / norms[~equal, None]
    away = [i for i in range(a.size) if not equal[i // a.shape[1]]]
    fd = fd_gradient(lambda v: np.linalg.norm(v - b, axis=1).sum(), a, away)
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference(EX["safe_distance"].reference(*inputs.values()), want, a)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_masked_log_gradient_is_one_over_x_where_positive(seed):
    inputs = EX["masked_log"].build(seed)
    x = f64(inputs["x"])
    positive = x > 0
    assert (x == 0).any() and (x < 0).any() and positive.any()
    assert np.abs(x[x != 0]).min() >= 0.2 - 1e-6  # no entry near the pole but the exact zeros
    want = np.where(positive, 1.0 / np.where(positive, x, 1.0), 0.0)
    away = [i for i in range(x.size) if x.flat[i] != 0]
    fd = fd_gradient(lambda v: np.where(v > 0, np.log(np.where(v > 0, v, 1.0)), 0.0).sum(), x, away)
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference(EX["masked_log"].reference(*inputs.values()), want, x)


def stable_sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def mean_bce(z, y):
    return np.mean(np.maximum(z, 0.0) - z * y + np.log1p(np.exp(-np.abs(z))))


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_bce_gradient_is_sigmoid_minus_label_over_n(seed):
    inputs = EX["stable_bce"].build(seed)
    z, y = f64(inputs["logits"]), f64(inputs["labels"])
    assert set(np.unique(y)) <= {0.0, 1.0}
    want = (stable_sigmoid(z) - y) / z.size
    fd = fd_gradient(lambda v: mean_bce(v, y), z, range(z.size))
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    # the planted entries: float32 sigmoid saturated to exactly 0 or 1 with the wrong label,
    # where the true gradient is about +-1/N
    p32 = tf.sigmoid(inputs["logits"]).numpy()
    wrong = ((p32 == 1.0) & (y == 0)) | ((p32 == 0.0) & (y == 1))
    assert wrong.sum() >= 2 and (np.abs(z[wrong]) >= 20).all()
    np.testing.assert_allclose(np.abs(want[wrong]), 1.0 / z.size, rtol=1e-6)
    assert (np.abs(z) >= 90).any()  # exp(|z|) overflows float32 here
    assert_reference(EX["stable_bce"].reference(*inputs.values()), want, z)


def mlp_loss(weights, x, y):
    """The MSE of a sigmoid MLP (the last layer linear), float64; weights = [W1, b1, W2, b2, ...]."""
    h = x
    for i in range(0, len(weights), 2):
        h = h @ weights[i] + weights[i + 1]
        if i + 2 < len(weights):
            h = 1.0 / (1.0 + np.exp(-h))
    return np.mean((h - y) ** 2)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_layer_norms_are_finite_difference_gradient_norms(seed):
    inputs = EX["layer_norms"].build(seed)
    model, x, y = inputs["model"], f64(inputs["x"]), f64(inputs["y"])
    weights = [w.astype(np.float64) for w in model.get_weights()]
    assert len(weights) == 2 * len(model.layers) and 4 <= len(model.layers) <= 7
    want = []
    for i in range(0, len(weights), 2):
        def at(kernel, i=i):
            return mlp_loss(weights[:i] + [kernel] + weights[i + 1:], x, y)
        want.append(np.linalg.norm(fd_gradient(at, weights[i], range(weights[i].size))))
    want = np.array(want)
    assert want[0] < want[-1] / 10  # the first layer's gradient has vanished next to the last one's
    got = EX["layer_norms"].reference(*inputs.values())
    assert isinstance(got, tf.Tensor) and got.dtype == tf.float32 and tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=1e-8)


@pytest.mark.parametrize("name", sorted(EX))
def test_builders_are_fresh_deterministic_and_shapes_vary(name):
    first, second = EX[name].build(0), EX[name].build(0)
    assert list(first) == list(second)
    if "model" in first:  # a fresh model with the same weights; its other inputs are checked below
        assert first["model"] is not second["model"]
        for a, b in zip(first["model"].get_weights(), second["model"].get_weights(), strict=True):
            np.testing.assert_array_equal(a, b)
        first, second = ({k: v for k, v in d.items() if k != "model"} for d in (first, second))
    for key in first:
        assert first[key] is not second[key]
        assert isinstance(first[key], tf.Tensor) and not isinstance(first[key], tf.Variable)
        assert first[key].dtype == tf.float32
        np.testing.assert_array_equal(first[key].numpy(), second[key].numpy())
    shapes = {tuple(tuple(t.shape) for t in EX[name].build(s).values() if isinstance(t, tf.Tensor)) for s in ALL_SEEDS}
    assert len(shapes) >= 3, shapes
