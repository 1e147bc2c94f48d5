"""Do lesson 5's reference gradients agree with computations that use no GradientTape?

Closed forms, in float64 numpy:

    soft argmax:  s_b = sum_i i p_bi, p_b = softmax(z_b / T)      d s / d z_bj = p_bj (j - s_b) / T
    straight-through rounding: q = step * round(w / step), loss = mean((x q - y)^2)
                  d loss / d w = 2/N x^T (x q - y)                (the gradient of the loss at q, passed straight to w)
    numpy softplus: loss = sum(w * log(1 + e^x))                   d loss / d x = w * sigmoid(x)

The soft argmax and the softplus are also checked against central finite differences of
a float64 numpy forward pass (step 1e-6). The straight-through gradient is, by design, not
the derivative of the rounded loss (which is 0 almost everywhere): it is checked against
finite differences of the *unrounded* loss evaluated at w = q, which is what it stands for.
The references run in float32, so they are compared with their own rtol/atol.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of
from tests.support.numeric import central_diff

pytestmark = pytest.mark.tf

EX = exercises_of("lesson5")
FD_STEP = 1e-6
FD_RTOL, FD_ATOL = 1e-6, 1e-7  # float64 central differences: error ~ step**2 + 1e-16 / step


def fd_gradient(f, x):
    """Central-difference gradient of a scalar function of a float64 array, one entry at a time."""
    return central_diff(f, x, eps=FD_STEP)


def assert_reference(name, got, want):
    exercise = EX[name]
    assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
    assert got.dtype == tf.float32
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=exercise.rtol, atol=exercise.atol)


def softmax64(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_soft_argmax_gradient_is_p_times_index_minus_mean(seed):
    inputs = EX["soft_argmax"].build(seed)
    z, temperature = inputs["logits"].numpy().astype(np.float64), inputs["temperature"]
    index = np.arange(z.shape[-1], dtype=np.float64)

    def total(zz):
        return float(np.sum(softmax64(zz / temperature) * index))

    p = softmax64(z / temperature)
    s = (p * index).sum(axis=-1, keepdims=True)
    want = p * (index - s) / temperature
    np.testing.assert_allclose(want, fd_gradient(total, z), rtol=FD_RTOL, atol=FD_ATOL)
    np.testing.assert_allclose(want.sum(axis=-1), 0.0, atol=1e-12)  # a shift of a row's logits changes nothing
    assert_reference("soft_argmax", EX["soft_argmax"].reference(*inputs.values()), want)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_straight_through_gradient_is_the_loss_gradient_at_the_rounded_weights(seed):
    inputs = EX["straight_through"].build(seed)
    w = inputs["w"].numpy().astype(np.float64)
    x, y, step = inputs["x"].numpy().astype(np.float64), inputs["y"].numpy().astype(np.float64), inputs["step"]
    q = step * np.round(w / step)
    assert not np.allclose(q, w)  # the rounding really moves the weights
    assert np.all(np.abs(w / step - np.round(w / step)) < 0.5 - 1e-3)  # no weight sits on a tie

    def loss(v):
        return float(np.mean((x @ v - y) ** 2))

    want = 2.0 / x.shape[0] * x.T @ (x @ q - y)
    np.testing.assert_allclose(want, fd_gradient(loss, q), rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference("straight_through", EX["straight_through"].reference(*inputs.values()), want)
    # the reference must not change the variable it was given
    np.testing.assert_array_equal(inputs["w"].numpy(), w.astype(np.float32))


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_numpy_gradient_is_w_times_sigmoid(seed):
    inputs = EX["numpy_gradient"].build(seed)
    x, w = inputs["x"].numpy().astype(np.float64), inputs["w"].numpy().astype(np.float64)

    def loss(v):
        return float(np.sum(w * np.logaddexp(0.0, v)))

    want = w / (1.0 + np.exp(-x))
    np.testing.assert_allclose(want, fd_gradient(loss, x), rtol=FD_RTOL, atol=FD_ATOL)
    assert np.any(w < 0) or seed != 0  # seed 0 has negative weights: a forgotten upstream factor shows
    assert_reference("numpy_gradient", EX["numpy_gradient"].reference(*inputs.values()), want)


@pytest.mark.parametrize("name", sorted(EX))
def test_builders_are_fresh_deterministic_and_vary_with_the_seed(name):
    first, second = EX[name].build(0), EX[name].build(0)
    assert list(first) == list(second)
    for key in first:
        a, b = first[key], second[key]
        if hasattr(a, "numpy"):
            assert a is not b
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.dtype == tf.float32
        else:
            assert a == b and isinstance(a, float)
    shapes = {tuple(tuple(v.shape) for v in EX[name].build(s).values() if hasattr(v, "shape")) for s in ALL_SEEDS}
    assert len(shapes) > 1  # the shapes change with the seed


def test_straight_through_gets_a_trainable_variable_and_the_others_constants():
    assert isinstance(EX["straight_through"].build(0)["w"], tf.Variable)
    assert EX["straight_through"].build(0)["w"].trainable
    for name, key in (("soft_argmax", "logits"), ("numpy_gradient", "x")):
        value = EX[name].build(0)[key]
        assert isinstance(value, tf.Tensor) and not isinstance(value, tf.Variable)
    temperatures = {EX["soft_argmax"].build(s)["temperature"] for s in ALL_SEEDS}
    assert 1.0 not in temperatures  # a forgotten temperature always shows
