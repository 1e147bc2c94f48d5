"""Do lesson 4's reference gradients match a computation that never uses a tape?

A SimpleRNN is h_t = tanh(x_t W + h_{t-1} U + b), so in float64 numpy
    dh_t/dh_{t-1} = diag(1 - h_t**2) U^T   and   dh_t/dh_0 = product of those.
That closed form is itself checked against central finite differences, and
every reference (float32) must match it within rtol=1e-4, atol=1e-5.
"""
import numpy as np
import pytest

import gradtutor.quiet  # noqa: F401  (before TensorFlow)
from gradtutor.course.references import ALL_SEEDS, exercises_of

EXERCISES = exercises_of("lesson4")

pytestmark = pytest.mark.tf

RTOL, ATOL = 1e-4, 1e-5


def weights(rnn):
    kernel, recurrent, bias = (np.asarray(w, dtype=np.float64) for w in rnn.get_weights())
    return kernel, recurrent, bias


def run_rnn(kernel, recurrent, bias, x, h0):
    """All states h_1..h_T in float64: (B, T, H)."""
    h, states = h0, []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
        states.append(h)
    return np.stack(states, axis=1)


def closed_form_jacobian(kernel, recurrent, bias, x, h0):
    """J[b, t, i, j] = d h_{t+1}[b, i] / d h0[b, j]: (B, T, H, H)."""
    states = run_rnn(kernel, recurrent, bias, x, h0)
    batch, units = h0.shape
    jac = np.broadcast_to(np.eye(units), (batch, units, units))
    out = []
    for t in range(x.shape[1]):
        step = (1.0 - states[:, t, :, None] ** 2) * recurrent.T[None]  # (B, H, H)
        jac = step @ jac
        out.append(jac)
    return np.stack(out, axis=1)


def as64(tensor):
    return np.asarray(tensor, dtype=np.float64)


def test_closed_form_matches_finite_differences():
    """Is the closed form right? Central differences in float64, eps=1e-6."""
    rng = np.random.default_rng(3)
    batch, steps, features, units = 2, 5, 3, 4
    kernel = rng.normal(size=(features, units)) * 0.7
    recurrent = rng.normal(size=(units, units)) * 0.5
    bias = rng.normal(size=units) * 0.1
    x = rng.normal(size=(batch, steps, features))
    h0 = rng.uniform(-1, 1, size=(batch, units))
    jac = closed_form_jacobian(kernel, recurrent, bias, x, h0)
    eps = 1e-6
    for j in range(units):
        bump = np.zeros_like(h0)
        bump[:, j] = eps
        diff = (run_rnn(kernel, recurrent, bias, x, h0 + bump)
                - run_rnn(kernel, recurrent, bias, x, h0 - bump)) / (2 * eps)
        np.testing.assert_allclose(jac[..., j], diff, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_fix_stateful(seed):
    ex = EXERCISES["fix_stateful"]
    inputs = ex.build(seed)
    got = as64(ex.reference(*inputs.values()))
    kernel, recurrent, bias = weights(inputs["rnn"])
    x = np.concatenate([as64(inputs["x1"]), as64(inputs["x2"])], axis=1)  # one long sequence
    jac = closed_form_jacobian(kernel, recurrent, bias, x, as64(inputs["h0"]))
    want = jac[:, -1].sum(axis=1)  # gradient of the sum over units of the last state
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_all_steps_jacobian(seed):
    ex = EXERCISES["all_steps_jacobian"]
    inputs = ex.build(seed)
    got = as64(ex.reference(*inputs.values()))
    want = closed_form_jacobian(*weights(inputs["rnn"]), as64(inputs["x"]), as64(inputs["h0"]))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_jacobian_norms(seed):
    ex = EXERCISES["jacobian_norms"]
    inputs = ex.build(seed)
    got = as64(ex.reference(*inputs.values()))
    jac = closed_form_jacobian(*weights(inputs["rnn"]), as64(inputs["x"]), as64(inputs["h0"]))
    want = np.sqrt((jac ** 2).sum(axis=(2, 3))).mean(axis=0)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", ALL_SEEDS)
def test_all_steps_jvp(seed):
    ex = EXERCISES["all_steps_jvp"]
    inputs = ex.build(seed)
    got = as64(ex.reference(*inputs.values()))
    jac = closed_form_jacobian(*weights(inputs["rnn"]), as64(inputs["x"]), as64(inputs["h0"]))
    want = np.einsum("btij,bj->bti", jac, as64(inputs["v"]))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_build_is_deterministic_and_fresh(name):
    """Same seed, same numbers; but new objects each call (learner and reference each get their own)."""
    ex = EXERCISES[name]
    a, b = ex.build(0), ex.build(0)
    assert list(a) == list(b)
    assert a["rnn"] is not b["rnn"]
    for key in a:
        if key == "rnn":
            for wa, wb in zip(a[key].get_weights(), b[key].get_weights()):
                np.testing.assert_array_equal(wa, wb)
        else:
            assert a[key].dtype.name == "float32"
            np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]))
