"""Do lesson 2's reference gradients agree with closed forms computed without GradientTape?

The closed forms are evaluated in float64 numpy from the models' own weights,
and are themselves checked by central finite differences in float64. The
references run in float32, so they are compared with rtol=1e-4, atol=1e-6 —
the same tolerances the checker uses (the gradients here are 1e-2 to 1).
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of
from tests.support.numeric import central_diff

pytestmark = pytest.mark.tf

EX = exercises_of("lesson2")
RTOL, ATOL = 1e-4, 1e-6


def as64(value):
    return np.asarray(value, dtype=np.float64)


def dense_layers(model):
    layers = [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    return [(as64(layer.kernel.numpy()), as64(layer.bias.numpy())) for layer in layers]


def assert_tensor_close(got, want):
    assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
    assert got.dtype == tf.float32
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)


# --- the classifier: Flatten -> Dense(softmax) --------------------------------
def softmax_probs(x, kernel, bias):
    z = x.reshape(x.shape[0], -1) @ kernel + bias
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def class_gradient(x, kernel, bias, k):
    """d sum_b p[b, k] / d x: p_k * (W[:, k] - W @ p) for each example, reshaped like x."""
    p = softmax_probs(x, kernel, bias)
    flat = p[:, k:k + 1] * (kernel[:, k][None, :] - p @ kernel.T)
    return flat.reshape(x.shape)


def classifier_parts(inputs):
    model = inputs["model"]
    (kernel, bias), = dense_layers(model)
    assert model.layers[-1].activation is keras.activations.softmax
    return as64(inputs["inp"].numpy()), kernel, bias


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_slice_inside_is_the_class_zero_gradient(seed):
    x, kernel, bias = classifier_parts(EX["slice_inside"].build(seed))
    want = class_gradient(x, kernel, bias, 0)
    by_differences = central_diff(lambda z: softmax_probs(z, kernel, bias)[:, 0].sum(), x)
    np.testing.assert_allclose(want, by_differences, rtol=1e-6, atol=1e-8)
    assert np.abs(want).max() > 1e-2  # clearly non-zero: "zeros" is a distinct symptom
    assert_tensor_close(EX["slice_inside"].reference(*EX["slice_inside"].build(seed).values()), want)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_two_targets_are_the_class_i_and_j_gradients(seed):
    inputs = EX["two_targets"].build(seed)
    i, j = inputs["i"], inputs["j"]
    assert isinstance(i, int) and isinstance(j, int) and i != j
    x, kernel, bias = classifier_parts(inputs)
    assert 0 <= i < kernel.shape[1] and 0 <= j < kernel.shape[1]
    wants = [class_gradient(x, kernel, bias, k) for k in (i, j)]
    for k, want in zip((i, j), wants):
        by_differences = central_diff(lambda z: softmax_probs(z, kernel, bias)[:, k].sum(), x)
        np.testing.assert_allclose(want, by_differences, rtol=1e-6, atol=1e-8)
        assert np.abs(want).max() > 1e-2
    got = EX["two_targets"].reference(*EX["two_targets"].build(seed).values())
    assert isinstance(got, tuple) and len(got) == 2
    for g, want in zip(got, wants):
        assert_tensor_close(g, want)


def test_two_targets_classes_differ_between_seeds():
    """An answer with classes hard-coded from the first seed must fail another seed."""
    pairs = {(EX["two_targets"].build(s)["i"], EX["two_targets"].build(s)["j"]) for s in ALL_SEEDS}
    assert (0, 1) in pairs and len(pairs) == len(ALL_SEEDS)


# --- the regressor: Dense(tanh) -> Dense ---------------------------------------
def mse(x, y, layers):
    (w1, b1), (w2, b2) = layers
    return np.mean((np.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)


def mse_gradient(x, y, layers):
    (w1, b1), (w2, b2) = layers
    h = np.tanh(x @ w1 + b1)
    d_out = 2 * (h @ w2 + b2 - y) / y.size
    return ((d_out @ w2.T) * (1 - h**2)) @ w1.T


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_no_predict_is_the_mean_squared_error_gradient(seed):
    inputs = EX["no_predict"].build(seed)
    assert not isinstance(inputs["x"], tf.Variable)  # a constant: the learner must watch it
    layers = dense_layers(inputs["model"])
    assert inputs["model"].layers[0].activation is keras.activations.tanh
    x, y = as64(inputs["x"]), as64(inputs["y"])
    assert x.shape[0] >= 2  # a sum over the batch differs from the mean
    want = mse_gradient(x, y, layers)
    np.testing.assert_allclose(want, central_diff(lambda z: mse(z, y, layers), x), rtol=1e-6, atol=1e-8)
    assert np.abs(want).max() > 1e-2
    assert_tensor_close(EX["no_predict"].reference(*EX["no_predict"].build(seed).values()), want)


# --- builders -------------------------------------------------------------------
def tensors_of(inputs):
    return {k: v for k, v in inputs.items() if isinstance(v, (tf.Tensor, tf.Variable))}


@pytest.mark.parametrize("name", sorted(EX))
@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_builders_are_deterministic_and_fresh(name, seed):
    first, second = EX[name].build(seed), EX[name].build(seed)
    assert list(first) == list(second)
    for key in first:
        assert first[key] is not second[key] or isinstance(first[key], int), key
    for key, value in tensors_of(first).items():
        assert value.dtype == tf.float32, key
        np.testing.assert_array_equal(value.numpy(), second[key].numpy())
    for a, b in zip(first["model"].get_weights(), second["model"].get_weights()):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, b)


def test_shapes_vary_with_seed():
    for name in EX:
        shapes = {tuple(tuple(v.shape) for v in tensors_of(EX[name].build(s)).values()) for s in ALL_SEEDS}
        assert len(shapes) > 1, name
