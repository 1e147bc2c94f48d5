"""Do lesson 3's reference gradients agree with computations that use no GradientTape?

Every model is Input((H, W)) -> Flatten -> Dense(C, softmax): z = x W + b, p = softmax(z).
Closed forms, in float64 numpy from the model's own kernel and bias:

    d loss / dx  = W (p - y)             for loss = -sum(y log p)   (y one-hot)
    d p_k / dx   = p_k (W[:, k] - W p)
    d z_k / dx   = W[:, k]

Each closed form is itself checked against central finite differences of a
float64 numpy forward pass (step 1e-6, all pixels at once). The references run
in float32, so they are compared with rtol=1e-4 and atol=1e-6 (about 1e-5 of
the largest gradient, which is 0.01-0.3 here).
"""
import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course.references import ALL_SEEDS, exercises_of

pytestmark = pytest.mark.tf

EX = exercises_of("lesson3")
RTOL, ATOL = 1e-4, 1e-6
FD_STEP = 1e-6
FD_RTOL, FD_ATOL = 1e-6, 1e-8  # float64 central differences: error ~ step**2 + 1e-16 / step


def weights64(model):
    """(W, b) of the last Dense layer, float64: W is (H*W, C)."""
    kernel, bias = model.layers[-1].get_weights()
    return kernel.astype(np.float64), bias.astype(np.float64)


def forward(x_flat, kernel, bias):
    """Logits and softmax probabilities for rows of flattened images, float64."""
    z = x_flat @ kernel + bias
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return z, e / e.sum(axis=-1, keepdims=True)


def fd_gradient(f, x_flat):
    """Central-difference gradient of a scalar function of one flattened image (1, D)."""
    d = x_flat.shape[1]
    steps = np.eye(d) * FD_STEP  # every pixel at once: row i nudges pixel i
    return ((f(x_flat + steps) - f(x_flat - steps)) / (2 * FD_STEP))[None, :]


def flat64(inp):
    return inp.numpy().astype(np.float64).reshape(1, -1)


def assert_reference(got, want, shape):
    assert isinstance(got, tf.Tensor) and not isinstance(got, tf.Variable), type(got)
    assert got.dtype == tf.float32
    assert tuple(got.shape) == shape
    np.testing.assert_allclose(got.numpy(), want.reshape(shape), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_loss_gradient_is_w_times_p_minus_y(seed):
    inputs = EX["loss_gradient"].build(seed)
    model, inp, target = inputs["model"], inputs["inp"], inputs["target"]
    kernel, bias = weights64(model)
    x, y = flat64(inp), target.numpy().astype(np.float64)
    _, p = forward(x, kernel, bias)
    want = (p - y) @ kernel.T  # (1, D)
    fd = fd_gradient(lambda xs: -np.sum(y * np.log(forward(xs, kernel, bias)[1]), axis=-1), x)
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference(EX["loss_gradient"].reference(*inputs.values()), want, tuple(inp.shape))


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_class_gradient_is_pk_times_wk_minus_wp(seed):
    inputs = EX["class_gradient"].build(seed)
    model, inp, k = inputs["model"], inputs["inp"], inputs["k"]
    assert isinstance(k, int) and 0 <= k < model.output_shape[-1]
    kernel, bias = weights64(model)
    x = flat64(inp)
    _, p = forward(x, kernel, bias)
    want = p[0, k] * (kernel[:, k] - kernel @ p[0])[None, :]
    fd = fd_gradient(lambda xs: forward(xs, kernel, bias)[1][:, k], x)
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference(EX["class_gradient"].reference(*inputs.values()), want, tuple(inp.shape))


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_logit_gradient_is_kernel_column(seed):
    inputs = EX["logit_gradient"].build(seed)
    model, inp, k = inputs["model"], inputs["inp"], inputs["k"]
    assert isinstance(k, int) and 0 <= k < model.output_shape[-1]
    kernel, bias = weights64(model)
    x = flat64(inp)
    want = kernel[:, k][None, :]
    fd = fd_gradient(lambda xs: forward(xs, kernel, bias)[0][:, k], x)
    np.testing.assert_allclose(want, fd, rtol=FD_RTOL, atol=FD_ATOL)
    assert_reference(EX["logit_gradient"].reference(*inputs.values()), want, tuple(inp.shape))


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_per_class_gradients_are_every_class_gradient(seed):
    inputs = EX["per_class_gradients"].build(seed)
    model, inp = inputs["model"], inputs["inp"]
    kernel, bias = weights64(model)
    x = flat64(inp)
    _, p = forward(x, kernel, bias)
    classes = kernel.shape[1]
    want = np.stack([p[0, k] * (kernel[:, k] - kernel @ p[0]) for k in range(classes)])  # (C, D)
    for k in (0, classes - 1):
        fd = fd_gradient(lambda xs: forward(xs, kernel, bias)[1][:, k], x)
        np.testing.assert_allclose(want[k][None, :], fd, rtol=FD_RTOL, atol=FD_ATOL)
    np.testing.assert_allclose(want.sum(axis=0), 0.0, atol=1e-15)  # the rows add up to d(sum p)/dx = 0
    assert_reference(EX["per_class_gradients"].reference(*inputs.values()), want,
                     (classes,) + tuple(inp.shape[1:]))


@pytest.mark.parametrize("name", sorted(EX))
def test_builders_are_fresh_and_deterministic(name):
    """Same seed -> equal inputs in new objects; seed 0 is the question's 28x28 and 10 classes."""
    first, second = EX[name].build(0), EX[name].build(0)
    assert first["model"] is not second["model"] and first["inp"] is not second["inp"]
    np.testing.assert_array_equal(first["inp"].numpy(), second["inp"].numpy())
    for a, b in zip(first["model"].get_weights(), second["model"].get_weights()):
        np.testing.assert_array_equal(a, b)
    assert tuple(first["inp"].shape) == (1, 28, 28) and first["model"].output_shape == (None, 10)
    assert isinstance(first["inp"], tf.Variable) and first["inp"].dtype == tf.float32
    shapes = {tuple(EX[name].build(s)["inp"].shape) for s in ALL_SEEDS}
    assert len(shapes) == len(ALL_SEEDS)  # every seed a different image size
