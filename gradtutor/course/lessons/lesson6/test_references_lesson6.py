"""Do lesson 6's references agree with closed forms computed without GradientTape?

Each closed form is evaluated in float64 numpy from the same seeded inputs (the
gradient-descent loop of exercise 1 is re-run in float64 too); the references run
in float32, so values are compared with rtol=1e-4, atol=1e-5. Central finite
differences in float64 back up each closed-form gradient.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of
from tests.support.numeric import central_diff

pytestmark = pytest.mark.tf

EX = exercises_of("lesson6")
RTOL, ATOL = 1e-4, 1e-5


def as64(value):
    return np.asarray(value, dtype=np.float64)


def assert_tensor_close(got, want):
    assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
    assert got.dtype == tf.float32
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)


# --- assign_in_place -------------------------------------------------------------
def mse_grads(w, b, x, y):
    """Closed-form gradients of mean((x @ w + b - y)**2)."""
    r = x @ w + b - y
    scale = 2.0 / r.size
    return scale * x.T @ r, scale * r.sum(axis=0)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_assign_in_place_is_plain_gradient_descent(seed):
    inputs = EX["assign_in_place"].build(seed)
    w, b, x, y = (as64(inputs[k]) for k in ("w0", "b0", "x", "y"))
    lr, steps = inputs["lr"], inputs["steps"]
    assert isinstance(lr, float) and isinstance(steps, int) and steps >= 3
    loss = lambda w_, b_: np.mean((x @ w_ + b_ - y) ** 2)  # noqa: E731
    dw, db = mse_grads(w, b, x, y)
    np.testing.assert_allclose(dw, central_diff(lambda z: loss(z, b), w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(db, central_diff(lambda z: loss(w, z), b), rtol=1e-6, atol=1e-7)
    start = loss(w, b)
    for _ in range(steps):
        dw, db = mse_grads(w, b, x, y)
        w, b = w - lr * dw, b - lr * db
    assert loss(w, b) < start  # the loop trains: a frozen answer (w0, b0) cannot pass
    assert np.abs(w - as64(inputs["w0"])).max() > 1e-2
    got = EX["assign_in_place"].reference(*EX["assign_in_place"].build(seed).values())
    assert isinstance(got, tuple) and len(got) == 2
    assert_tensor_close(got[0], w)
    assert_tensor_close(got[1], b)


def test_one_step_differs_from_the_full_loop():
    """The "variables made inside the loop" answer (one step, `steps` times) must not pass."""
    inputs = EX["assign_in_place"].build(0)
    w, b, x, y = (as64(inputs[k]) for k in ("w0", "b0", "x", "y"))
    dw, db = mse_grads(w, b, x, y)
    one_step = w - inputs["lr"] * dw
    full = EX["assign_in_place"].reference(*EX["assign_in_place"].build(0).values())[0].numpy()
    assert not np.allclose(one_step, full, rtol=RTOL, atol=ATOL)


# --- tracked_weights -----------------------------------------------------------------
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_tracked_weights_matches_closed_form(seed):
    inputs = EX["tracked_weights"].build(seed)
    assert all(isinstance(inputs[k], np.ndarray) for k in ("kernel0", "bias0"))
    kernel, bias, x = (as64(inputs[k]) for k in ("kernel0", "bias0", "x"))
    slope = 1 - np.tanh(x @ kernel + bias) ** 2
    want_kernel, want_bias = x.T @ slope, slope.sum(axis=0)
    loss = lambda k_, b_: np.sum(np.tanh(x @ k_ + b_))  # noqa: E731
    np.testing.assert_allclose(want_kernel, central_diff(lambda z: loss(z, bias), kernel), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(want_bias, central_diff(lambda z: loss(kernel, z), bias), rtol=1e-6, atol=1e-6)
    assert np.abs(want_kernel).max() > 0.1  # not saturated: a real gradient
    got = EX["tracked_weights"].reference(*EX["tracked_weights"].build(seed).values())
    assert isinstance(got, tuple) and len(got) == 2
    assert_tensor_close(got[0], want_kernel)
    assert_tensor_close(got[1], want_bias)


# --- unused_head -----------------------------------------------------------------------
def head_closed_form(weights, x, y):
    """Backpropagation by hand through tanh trunk -> main head, for mean((main - y)**2); aux gets zeros."""
    w1, b1, w2, b2, w3, b3 = weights
    h = np.tanh(x @ w1 + b1)
    dm = 2.0 * (h @ w2 + b2 - y) / y.size
    dz = (dm @ w2.T) * (1 - h**2)
    return [x.T @ dz, dz.sum(axis=0), h.T @ dm, dm.sum(axis=0), np.zeros_like(w3), np.zeros_like(b3)]


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_unused_head_matches_backpropagation_by_hand(seed):
    inputs = EX["unused_head"].build(seed)
    model = inputs["model"]
    assert [v.path for v in model.trainable_variables] == [
        "trunk/kernel", "trunk/bias", "main/kernel", "main/bias", "aux/kernel", "aux/bias"]
    weights = [as64(w) for w in model.get_weights()]
    x, y = as64(inputs["x"]), as64(inputs["y"])
    want = head_closed_form(weights, x, y)

    def loss(index, value):
        ws = list(weights)
        ws[index] = value
        h = np.tanh(x @ ws[0] + ws[1])
        return np.mean((h @ ws[2] + ws[3] - y) ** 2)

    for index in range(6):
        numeric = central_diff(lambda z: loss(index, z), weights[index])
        np.testing.assert_allclose(want[index], numeric, rtol=1e-5, atol=1e-7)
    assert all(np.abs(w).max() > 1e-2 for w in want[:4])  # every connected gradient is clearly non-zero
    got = EX["unused_head"].reference(*EX["unused_head"].build(seed).values())
    assert isinstance(got, tuple) and len(got) == 6
    for got_one, want_one in zip(got, want):
        assert_tensor_close(got_one, want_one)


def test_shapes_vary_with_seed():
    for name in EX:
        shapes = set()
        for seed in ALL_SEEDS:
            inputs = EX[name].build(seed)
            shapes.add(tuple(tuple(v.shape) for v in inputs.values() if hasattr(v, "shape")))
        assert len(shapes) > 1, name
