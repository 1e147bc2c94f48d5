"""Do lesson 1's reference gradients agree with closed forms computed without GradientTape?

Each closed form is evaluated in float64 numpy from the same seeded inputs; the
reference runs in float32, so values are compared with rtol=1e-4, atol=1e-5.
Finite differences in float64 back up the closed forms themselves.
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of
from tests.support.numeric import central_diff

pytestmark = pytest.mark.tf

EX = exercises_of("lesson1")
RTOL, ATOL = 1e-4, 1e-5


def as64(value):
    """float64 numpy copy of a tensor, tf.Variable, keras.Variable or array."""
    if hasattr(value, "value") and not isinstance(value, (np.ndarray, tf.Tensor, tf.Variable)):
        value = value.value  # keras.Variable -> the tf.Variable inside
    return np.asarray(value, dtype=np.float64)


def assert_tensor_close(got, want):
    assert isinstance(got, tf.Tensor), type(got)
    assert got.dtype == tf.float32
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_watch_constant_is_three_x_squared(seed):
    x = as64(EX["watch_constant"].build(seed)["x"])
    want = 3 * x**2
    np.testing.assert_allclose(want, central_diff(lambda z: np.sum(z**3), x), rtol=1e-6, atol=1e-6)
    assert_tensor_close(EX["watch_constant"].reference(*EX["watch_constant"].build(seed).values()), want)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_numpy_input_is_sin_plus_x_cos(seed):
    inputs = EX["numpy_input"].build(seed)
    assert isinstance(inputs["x"], np.ndarray) and inputs["x"].dtype == np.float32
    x = as64(inputs["x"])
    want = np.sin(x) + x * np.cos(x)
    np.testing.assert_allclose(want, central_diff(lambda z: np.sum(np.sin(z) * z), x), rtol=1e-6, atol=1e-6)
    assert_tensor_close(EX["numpy_input"].reference(*EX["numpy_input"].build(seed).values()), want)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_frozen_weight_matches_closed_form(seed):
    inputs = EX["frozen_weight"].build(seed)
    assert inputs["w"].trainable is False and inputs["b"].trainable is True
    w, b, x = (as64(inputs[k]) for k in ("w", "b", "x"))
    r = x @ w + b
    want_dw = 2 * x.T @ r
    want_db = 2 * r.sum(axis=0)
    loss = lambda w_, b_: np.sum((x @ w_ + b_) ** 2)  # noqa: E731
    np.testing.assert_allclose(want_dw, central_diff(lambda z: loss(z, b), w), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(want_db, central_diff(lambda z: loss(w, z), b), rtol=1e-6, atol=1e-5)
    got = EX["frozen_weight"].reference(*EX["frozen_weight"].build(seed).values())
    assert isinstance(got, tuple) and len(got) == 2
    assert_tensor_close(got[0], want_dw)
    assert_tensor_close(got[1], want_db)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_keras_variable_matches_closed_form(seed):
    inputs = EX["keras_variable"].build(seed)
    assert inputs["v"].trainable is False
    v, x = as64(inputs["v"]), as64(inputs["x"])
    want = x.T @ (1 - np.tanh(x @ v) ** 2)
    np.testing.assert_allclose(want, central_diff(lambda z: np.sum(np.tanh(x @ z)), v), rtol=1e-6, atol=1e-6)
    # not ~0: the exercise must be able to tell a real gradient from a zero one
    assert np.abs(want).max() > 1e-1
    assert_tensor_close(EX["keras_variable"].reference(*EX["keras_variable"].build(seed).values()), want)


@pytest.mark.parametrize("name", sorted(EX))
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_builders_are_deterministic_and_fresh(name, seed):
    first, second = EX[name].build(seed), EX[name].build(seed)
    assert list(first) == list(second)
    for key in first:
        assert first[key] is not second[key]
        np.testing.assert_array_equal(as64(first[key]), as64(second[key]))
        dtype = first[key].dtype  # tf.DType, numpy dtype, or keras's "float32"
        assert np.dtype(getattr(dtype, "as_numpy_dtype", dtype)) == np.float32, (key, dtype)


def test_shapes_vary_with_seed():
    for name in EX:
        shapes = {tuple(as64(v).shape for v in EX[name].build(s).values()) for s in ALL_SEEDS}
        assert len(shapes) > 1, name
