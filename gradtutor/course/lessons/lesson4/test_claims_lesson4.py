"""Do TensorFlow and Keras still behave the way lesson 4 says they do?

Each test re-runs one statement of solutions/lesson4/lesson4.ipynb (its prose,
printed numbers and "Check your understanding" answers) with the notebook's own
seeds and sizes, so an upgrade that changes one fails here instead of leaving
the lesson wrong. The Keras 2 run uses the script stored in the notebook itself.
"""
import ast
import importlib.util
import inspect
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import gradtutor.quiet  # noqa: F401  (before TensorFlow)
import keras
import numpy as np
import pytest
import tensorflow as tf

from gradtutor.course import manifest as course

pytestmark = pytest.mark.tf

NOTEBOOK = course.load().lesson("lesson4").source_notebook()  # solutions/lesson4/lesson4.ipynb


def notebook_constant(name):
    """The literal a notebook cell assigns to `name` (the Keras 2 script)."""
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if name not in source:
            continue
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
                return ast.literal_eval(node.value)
    raise AssertionError(f"{name} is not assigned in {NOTEBOOK}")


def max_abs(a, b):
    return float(tf.reduce_max(tf.abs(a - b)))


# --- 1. The symptom under Keras 2 ------------------------------------------------
@pytest.fixture(scope="module")
def keras2_output():
    assert importlib.util.find_spec("tf_keras") is not None, "tf-keras must be installed for lesson 4's Keras 2 run"
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
    done = subprocess.run([sys.executable, "-c", notebook_constant("KERAS2_SEED")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _norms_after(output, label):
    line = next(line for line in output.splitlines() if label in line)
    return ast.literal_eval(line[line.index("["):])


def test_keras2_seed_loop_gradient_only_at_step_1(keras2_output):
    """'a gradient at step 1 (norm about 115), None at every later step'; tf.keras is tf_keras."""
    assert "tf.keras is tf_keras" in keras2_output
    norms = _norms_after(keras2_output, "the seed's loop")
    assert len(norms) == 5
    assert norms[0] is not None and norms[0] == pytest.approx(115, abs=2)
    assert norms[1:] == [None, None, None, None]


def test_keras2_reset_states_brings_every_gradient_back(keras2_output):
    """'With reset_states() before each call, every step has a gradient again.'"""
    norms = _norms_after(keras2_output, "reset_states() each time")
    assert len(norms) == 5 and all(n is not None and n > 1 for n in norms)


def test_keras2_source_uses_stored_state_once_non_zero():
    """The quoted lines of tf_keras/src/layers/rnn/base_rnn.py are still there."""
    spec = importlib.util.find_spec("tf_keras")
    source = (Path(spec.origin).parent / "src" / "layers" / "rnn" / "base_rnn.py").read_text()
    assert "non_zero_count > 0" in source
    assert "true_fn=lambda: self.states" in source
    assert "false_fn=lambda: initial_state" in source


# --- 2. Keras 3 ---------------------------------------------------------------------
def test_keras3_seed_loop_has_every_gradient():
    """The seed's loop under Keras 3: no None at any of the 5 steps."""
    keras.utils.set_random_seed(0)
    batch_size, input_length = 100, 5
    xtr_pad = tf.random.uniform((batch_size, input_length), maxval=500, dtype=tf.int32)
    inp = keras.Input(batch_shape=(batch_size, input_length), name="input")
    emb_out = keras.layers.Embedding(500, 100, trainable=False, name="embedding")(inp)
    rnn = keras.layers.SimpleRNN(200, return_sequences=True, stateful=True, name="simpleRNN")
    h0 = tf.convert_to_tensor(np.random.uniform(size=(batch_size, 200)).astype(np.float32))
    model_rnn = keras.Model(inputs=inp, outputs=rnn(emb_out, initial_state=h0))
    for t in range(input_length):
        with tf.GradientTape() as tape:
            tape.watch(h0)
            ht = model_rnn(xtr_pad)[:, t, :]
        grad_t = tape.gradient(ht, h0)
        assert grad_t is not None and float(tf.norm(grad_t)) > 1


def test_keras3_source_honours_initial_state_and_assigns_state():
    """The quoted rnn.py: the stored state only when initial_state is None; assign after each call."""
    from keras.src.layers.rnn import rnn as rnn_module

    source = inspect.getsource(rnn_module.RNN.call)
    assert "if initial_state is None:\n            if self.stateful:\n                initial_state = self.states" in source
    assert "self_state.assign(state)" in source


def test_keras3_renames():
    """The renames table: recurrent/embeddings modules gone, input_length deprecated,
    reset_state with a reset_states alias on the layer, none on the model, Input(batch_shape=...)."""
    for module in ("keras.layers.recurrent", "keras.layers.embeddings"):
        with pytest.raises(ModuleNotFoundError):
            __import__(module)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        keras.layers.Embedding(500, 100, input_length=5)
    assert any("input_length" in str(w.message) and "deprecated" in str(w.message) for w in caught)
    model = keras.Sequential([keras.Input(batch_shape=(2, 3, 4)), keras.layers.SimpleRNN(5, stateful=True)])
    layer = model.layers[0]
    assert hasattr(layer, "reset_state") and hasattr(layer, "reset_states")
    assert not hasattr(model, "reset_states") and not hasattr(model, "reset_state")


def _chunks():
    keras.utils.set_random_seed(1)
    B, T, D, H = 4, 6, 3, 5
    x1, x2 = tf.random.normal((B, T, D)), tf.random.normal((B, T, D))
    h_start = tf.random.uniform((B, H))
    return x1, x2, h_start, keras.layers.SimpleRNN(H, return_sequences=True, stateful=True)


def test_keras3_state_carried_between_calls_has_no_gradient():
    """'call 2 started from h_T of call 1: True', gradient None; with the hand-over (4, 5), max about 0.039."""
    x1, x2, h_start, chunked = _chunks()
    with tf.GradientTape() as tape:
        tape.watch(h_start)
        out1 = chunked(x1, initial_state=h_start)
        stored_after_1 = chunked.states[0].numpy()
        out2 = chunked(x2)
        last = out2[:, -1, :]
    assert np.array_equal(stored_after_1, out1[:, -1, :].numpy())
    assert tape.gradient(last, h_start) is None
    with tf.GradientTape() as tape:
        tape.watch(h_start)
        out1 = chunked(x1, initial_state=h_start)
        last = chunked(x2, initial_state=out1[:, -1, :])[:, -1, :]
    grad = tape.gradient(last, h_start)
    assert tuple(grad.shape) == (4, 5)
    assert float(tf.reduce_max(tf.abs(grad))) == pytest.approx(0.039, abs=0.001)


# --- 3. dh_t/dh_0 ----------------------------------------------------------------------
def _small_rnn():
    keras.utils.set_random_seed(2)
    B, T, D, H = 4, 8, 3, 8
    x, h0 = tf.random.normal((B, T, D)), tf.random.uniform((B, H))
    return keras.layers.SimpleRNN(H, return_sequences=True), x, h0


def test_gradient_is_the_sum_over_units_not_the_jacobian():
    """(4, 8) vs (4, 8, 8); gradient == Jacobian summed over output units; jacobian (4, 8, 8, 4, 8);
    batch_jacobian of all states (4, 8, 8, 8), the same numbers as the single step."""
    rnn, x, h0 = _small_rnn()
    t = 3
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(h0)
        states = rnn(x, initial_state=h0)
        h_t = states[:, t - 1, :]
    summed = tape.gradient(h_t, h0)
    jac_t = tape.batch_jacobian(h_t, h0)
    full = tape.jacobian(states, h0)
    J = tape.batch_jacobian(states, h0)
    del tape
    assert tuple(summed.shape) == (4, 8) and tuple(jac_t.shape) == (4, 8, 8)
    assert np.allclose(summed, tf.reduce_sum(jac_t, axis=1), atol=1e-6)
    assert tuple(full.shape) == (4, 8, 8, 4, 8) and tuple(J.shape) == (4, 8, 8, 8)
    assert np.allclose(J[:, t - 1], jac_t, atol=1e-6)
    # "mostly zeros": example b's states do not depend on example b' != b
    off_diagonal = [full[b, :, :, c] for b in range(4) for c in range(4) if b != c]
    assert all(float(tf.reduce_max(tf.abs(block))) == 0.0 for block in off_diagonal)


def test_unwatched_source_none_for_gradient_and_jacobian_zeros_for_batch_jacobian():
    """'tape.gradient and tape.jacobian return None ... tape.batch_jacobian returns zeros.'"""
    rnn, x, h0 = _small_rnn()
    with tf.GradientTape(persistent=True) as tape:
        states = rnn(x, initial_state=h0)
    assert tape.gradient(states, h0) is None
    assert tape.jacobian(states, h0) is None
    unwatched = tape.batch_jacobian(states, h0)
    assert tuple(unwatched.shape) == (4, 8, 8, 8)
    assert float(tf.reduce_max(tf.abs(unwatched))) == 0.0


def _notebook_functions():
    """The notebook's jacobian_* helpers and seconds(), run from its own cell."""
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and source.startswith("def jacobian_per_step"):
            namespace = {"tf": tf, "time": time}
            exec(compile(source, str(NOTEBOOK), "exec"), namespace)
            return namespace
    raise AssertionError("the cell defining jacobian_per_step is gone")


def test_five_ways_agree_and_their_order_of_cost():
    """All five give the same numbers (differences about 1e-7 or less); the per-step loop is the
    slowest, tf.function beats eager once traced, forward mode beats one eager batch_jacobian."""
    f = _notebook_functions()
    seconds = f["seconds"]
    keras.utils.set_random_seed(3)
    xb, h0b = tf.random.normal((8, 6, 3)), tf.random.uniform((8, 16))
    rnn_b = keras.layers.SimpleRNN(16, return_sequences=True, unroll=True)
    rnn_b(xb, initial_state=h0b)
    compiled, forward_compiled = tf.function(f["jacobian_one_tape"]), tf.function(f["jacobian_forward"])
    J_loop, t_loop = seconds(f["jacobian_per_step"], rnn_b, xb, h0b)
    J_one, t_one = seconds(f["jacobian_one_tape"], rnn_b, xb, h0b, repeat=3)
    compiled(rnn_b, xb, h0b)
    J_comp, t_comp = seconds(compiled, rnn_b, xb, h0b, repeat=3)
    J_fwd, t_fwd = seconds(f["jacobian_forward"], rnn_b, xb, h0b, repeat=3)
    forward_compiled(rnn_b, xb, h0b)
    J_fc, t_fc = seconds(forward_compiled, rnn_b, xb, h0b, repeat=3)
    assert tuple(J_loop.shape) == (8, 6, 16, 16)
    for J_m in (J_one, J_comp, J_fwd, J_fc):
        assert max_abs(J_m, J_loop) <= 5e-7
    # orders of magnitude apart in the lesson's runs; asserted with wide margins (shared CPUs)
    assert t_loop > 2 * t_one
    assert t_one > 10 * t_comp
    assert t_one > 3 * t_fwd
    assert t_fwd > t_fc


def test_forward_mode_in_tf_function_needs_unroll():
    """unroll=False inside tf.function: ValueError '... variable without handle data'; eagerly fine."""
    f = _notebook_functions()
    keras.utils.set_random_seed(3)
    xb, h0b = tf.random.normal((8, 6, 3)), tf.random.uniform((8, 16))
    rnn_loop = keras.layers.SimpleRNN(16, return_sequences=True)
    rnn_loop(xb, initial_state=h0b)
    with pytest.raises(ValueError, match=r"Tried to take gradients \(or similar\) of a variable without handle data"):
        tf.function(f["jacobian_forward"])(rnn_loop, xb, h0b)
    assert max_abs(f["jacobian_forward"](rnn_loop, xb, h0b), f["jacobian_one_tape"](rnn_loop, xb, h0b)) <= 5e-7


# --- 4. Vanishing gradients --------------------------------------------------------------
def test_jacobian_norm_vanishes_exponentially():
    """About 2.9 at t=1, 0.17 at t=10, 7.4e-3 at t=20, 1.6e-5 at t=40, 3e-8 at t=60 (printed 2.9e-08);
    'a straight line on a log scale'."""
    f = _notebook_functions()
    keras.utils.set_random_seed(4)
    xl, h0l = tf.random.normal((8, 60, 3)), tf.random.uniform((8, 16))
    rnn_l = keras.layers.SimpleRNN(16, return_sequences=True)
    J_long = f["jacobian_forward"](rnn_l, xl, h0l)
    assert tuple(J_long.shape) == (8, 60, 16, 16)
    norms = tf.reduce_mean(tf.norm(J_long, axis=[2, 3]), axis=0).numpy()
    for t, value in [(1, 2.9), (10, 0.17), (20, 7.4e-3), (40, 1.6e-5), (60, 2.9e-8)]:
        assert norms[t - 1] == pytest.approx(value, rel=0.03), t
    assert np.all(np.diff(norms) < 0)
    slope, intercept = np.polyfit(np.arange(1, 61), np.log(norms), 1)
    residual = np.log(norms) - (slope * np.arange(1, 61) + intercept)
    assert slope < 0 and np.max(np.abs(residual)) < 0.5
