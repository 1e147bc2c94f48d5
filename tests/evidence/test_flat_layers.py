"""The three measures a flat-layer finding rests on (gradtutor.evidence.flat_layers), against their definitions.

No TensorFlow: outputs, targets, weights and gradients are numpy arrays drawn from a fresh seed. The whole finding,
on Keras models trained by fit and train_on_batch, is in the explain corpus (saturation_fit_*, saturation_train_on_*,
ok_fit_*).
"""
from __future__ import annotations

import numpy as np
import pytest

from gradtutor.evidence import flat_layers
from gradtutor.evidence.flat_layers import FLAT, LEARNED, SMALL

pytestmark = pytest.mark.unit
SEEDS = list(np.random.SeedSequence().generate_state(3))


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("seed", SEEDS)
def test_an_output_is_flat_exactly_where_its_slope_is_almost_zero(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(int(rng.integers(2, 64)), int(rng.integers(2, 9)))) * 10.0 ** rng.uniform(-1, 1.5)
    sigmoid, tanh = _sigmoid(z), np.tanh(z)
    # the definitions in slopes: a sigmoid's s(1 - s) below ~FLAT, a tanh's 1 - t² below ~4 FLAT
    assert np.array_equal(flat_layers._flat("sigmoid", sigmoid), np.minimum(sigmoid, 1 - sigmoid) <= FLAT)
    assert np.array_equal(flat_layers._flat("tanh", tanh), 1 - np.abs(tanh) <= 2 * FLAT)
    softmax = np.exp(z - z.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    rows = flat_layers._flat("softmax", softmax)
    assert rows.shape == (len(z),)
    assert np.array_equal(rows, np.sort(softmax, axis=1)[:, -1] >= 1 - FLAT)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_model_has_learned_when_it_fits_the_rows_it_was_trained_on(seed):
    rng = np.random.default_rng(seed)
    rows, classes = int(rng.integers(20, 200)), int(rng.integers(2, 7))
    labels = rng.integers(classes, size=rows)
    right = rng.random(rows) < rng.uniform(0.5, 1)
    guess = np.where(right, labels, (labels + 1) % classes)
    probabilities = np.full((rows, classes), 0.1 / classes)
    probabilities[np.arange(rows), guess] = 0.9
    learned = right.mean() >= LEARNED
    assert flat_layers._learned("softmax", probabilities, labels) == learned  # sparse labels
    assert flat_layers._learned("softmax", probabilities, np.eye(classes)[labels]) == learned  # one-hot
    binary = labels % 2
    outputs = np.where(right, binary, 1 - binary) * 0.98 + 0.01
    assert flat_layers._learned("sigmoid", outputs[:, None], binary) == learned
    # a regression: fits when its squared error is at most half the targets' variance
    y = rng.normal(size=rows) * 10.0 ** rng.uniform(-2, 3)
    noise = rng.uniform(0, 1.5)
    prediction = y + rng.normal(size=rows) * y.std() * noise
    want = np.mean((prediction - y) ** 2) <= y.var() / 2
    assert flat_layers._learned(None, prediction[:, None], y[:, None]) == want
    assert flat_layers._learned(None, prediction[:, None], np.zeros(rows + 1)) is None  # targets of another shape


class _Weight:
    def __init__(self, value, path):
        self.value, self.path = value, path

    def numpy(self):
        return self.value


@pytest.mark.parametrize("seed", SEEDS)
def test_the_starved_kernel_is_the_one_whose_gradient_is_smallest_for_its_size(seed):
    rng = np.random.default_rng(seed)
    pairs = []
    for index in range(int(rng.integers(1, 6))):
        weight = rng.normal(size=(int(rng.integers(1, 9)), int(rng.integers(1, 9)))) * 10.0 ** rng.uniform(-2, 2)
        gradient = rng.normal(size=weight.shape) * np.abs(weight).mean() * 10.0 ** rng.uniform(-7, 0)
        pairs.append((_Weight(weight, f"layer{index}/kernel"), gradient))
    pairs.append((_Weight(np.ones((2, 2)), "unasked/kernel"), None))  # no gradient: not a measure of anything
    shares = {w.path: np.abs(g).mean() / np.abs(w.value).mean() for w, g in pairs if g is not None}
    smallest = min(shares, key=shares.get)
    found = flat_layers._starved(pairs)
    if shares[smallest] < SMALL:
        assert found[0] == smallest and found[1] == pytest.approx(shares[smallest])
    else:
        assert found is None
