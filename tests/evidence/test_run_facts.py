"""Do the run facts say what the learner's code did: which op cut the path, what was replaced or saturated?

Each case runs a small function under gradtutor.evidence.reading.run_facts.recording, in this process, as
the checker's child does, and reads the RunFacts it leaves.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf


@pytest.fixture(scope="module")
def tf():
    import gradtutor.quiet  # noqa: F401  (before TensorFlow)
    import tensorflow

    return tensorflow


def _facts(function, *args) -> dict:
    from gradtutor.evidence.reading import run_facts

    recorded: dict = {}
    with run_facts.recording(list(args), recorded):
        function(*args)
    return recorded


def _facts_of_cell(tf, label: str, source: str, name: str, *args) -> dict:
    """Run `name` from a cell compiled as the checker's child compiles it (under its label), recording facts."""
    import linecache

    from gradtutor.evidence.reading import run_facts

    linecache.cache[label] = (len(source), None, source.splitlines(True), label)
    namespace = {"tf": tf}
    exec(compile(source, label, "exec"), namespace)
    recorded: dict = {}
    with run_facts.recording([], recorded, frozenset({label})):
        namespace[name](*args)
    return recorded


def _gradient_of(tf, make_target):
    def run(w):
        with tf.GradientTape() as tape:
            target = make_target(w)
        return tape.gradient(target, w)
    return run


@pytest.mark.parametrize("name, target, path_break", [
    ("round", lambda tf, w: tf.reduce_sum(tf.round(w * 3.0) ** 2), "no-gradient-op"),
    ("argmax cast back to float", lambda tf, w: tf.cast(tf.argmax(w), tf.float32), "no-gradient-op"),
    ("a comparison's mask as the value", lambda tf, w: tf.reduce_sum(tf.cast(w > 0.0, tf.float32)), "no-gradient-op"),
    ("a cast to int and back", lambda tf, w: tf.reduce_sum(tf.cast(tf.cast(w * 9.0, tf.int32), tf.float32)),
     "integer-path"),
    ("stop_gradient around the rounding", lambda tf, w: tf.reduce_sum(tf.stop_gradient(tf.round(w)) * 2.0),
     "stop-gradient"),
])
def test_is_the_op_that_cut_the_only_path_named(tf, name, target, path_break):
    w = tf.Variable([0.3, -1.2, 2.5])
    facts = _facts(_gradient_of(tf, lambda v: target(tf, v)), w)
    assert facts.get("path_break") == path_break, (name, facts)


def test_does_a_connected_path_name_no_break_but_keep_the_cut_it_also_had(tf):
    w = tf.Variable([0.3, -1.2, 2.5])
    # the straight-through estimator written wrong: the w's cancel, the rounded value is stopped
    facts = _facts(_gradient_of(tf, lambda v: tf.reduce_sum(v + tf.stop_gradient(tf.round(v)) - v)), w)
    assert "path_break" not in facts and facts["path_cut"] == "stop-gradient"


@pytest.mark.parametrize("name, target", [
    ("a mask from a comparison picks values", lambda tf, w: tf.reduce_sum(tf.where(w > 0.0, w, 0.0 * w))),
    ("a mean by the shape's length", lambda tf, w: tf.reduce_sum(w) / tf.cast(tf.shape(w)[0], tf.float32)),
    ("the straight-through estimator", lambda tf, w: tf.reduce_sum(w + tf.stop_gradient(tf.round(w) - w))),
])
def test_do_correct_paths_name_no_break(tf, name, target):
    w = tf.Variable([0.3, -1.2, 2.5])
    facts = _facts(_gradient_of(tf, lambda v: target(tf, v)), w)
    assert "path_break" not in facts, (name, facts)
    if name != "the straight-through estimator":
        assert "path_cut" not in facts, (name, facts)


def test_is_numpy_function_seen_though_it_runs_no_op(tf):
    import numpy as np

    x = tf.constant([0.5, -1.0])

    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.numpy_function(lambda a: np.exp(a).astype(np.float32), [x], tf.float32))
        return tape.gradient(y, x)

    assert _facts(run, x).get("numpy_function") is True
    assert "numpy_function" not in _facts(_gradient_of(tf, lambda v: tf.reduce_sum(tf.exp(v))), tf.Variable([1.0]))


def test_is_a_variable_rebound_to_a_tensor_or_made_anew_each_step_a_replaced_variable(tf):
    def rebound(w0):
        w = tf.Variable(w0)
        for _ in range(2):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w ** 2)
            g = tape.gradient(loss, w)
            if g is None:  # the second step's: w is a tensor now
                return None
            w = w - 0.1 * g
        return w

    def made_each_step(w0):
        for _ in range(2):
            w = tf.Variable(w0)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w ** 2)
            w.assign_sub(0.1 * tape.gradient(loss, w))
        return w

    def two_models(w0):  # two different variables, asked one after the other: nothing was replaced
        a, b = tf.Variable(w0), tf.Variable(tf.zeros((3, 1)))
        for v in (a, b):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(v ** 2)
            tape.gradient(loss, v)

    w0 = tf.constant([1.0, 2.0])
    assert _facts(rebound, w0).get("variable_replaced") is True
    assert _facts(made_each_step, w0).get("variable_replaced") is True
    assert "variable_replaced" not in _facts(two_models, w0)


def test_is_a_sigmoid_at_its_float32_limit_saturated(tf):
    assert _facts(_gradient_of(tf, lambda v: tf.reduce_sum(tf.sigmoid(v))), tf.Variable([40.0, 0.5])).get("saturated")
    assert "saturated" not in _facts(_gradient_of(tf, lambda v: tf.reduce_sum(tf.sigmoid(v))), tf.Variable([2.0]))


def test_are_frozen_weights_and_an_empty_variables_list_seen(tf):
    import keras

    class Frozen(keras.layers.Layer):
        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], 1), initializer="ones", trainable=False)

        def call(self, x):
            return x @ self.kernel

    def run(x):
        layer = Frozen()
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x))
        return tape.gradient(loss, layer.trainable_variables)

    facts = _facts(run, tf.ones((2, 3)))
    assert facts.get("frozen_variable") is True and facts.get("no_sources") is True


def test_is_the_learners_line_that_ran_the_cutting_op_kept(tf):
    label = "code cell 2 (In [3])"
    source = ("def ste(w):\n    with tf.GradientTape() as tape:\n        q = tf.round(w * 4.0) / 4.0\n"
              "        loss = tf.reduce_sum(q ** 2)\n    return tape.gradient(loss, w)\n")
    recorded = _facts_of_cell(tf, label, source, "ste", tf.Variable([0.3, 0.7]))
    assert recorded["path_break"] == "no-gradient-op"
    assert recorded["broke_at"] == {"no-gradient-op": f"{label}, line 3: q = tf.round(w * 4.0) / 4.0"}


@pytest.mark.parametrize("cause, body, line", [
    ("unwatched", "    v = tf.Variable(x)\n    with tf.GradientTape(watch_accessed_variables=False) as tape:\n"
     "        y = tf.reduce_sum(v ** 3)\n    return tape.gradient(y, v)\n",
     "line 3: with tf.GradientTape(watch_accessed_variables=False) as tape:"),
    ("leaves-tensorflow", "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = x.numpy() ** 3\n"
     "    return tape.gradient(tf.reduce_sum(tf.constant(y)), x)\n", "line 4: y = x.numpy() ** 3"),
    ("outside-tape", "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = x ** 3\n"
     "    total = tf.reduce_sum(y)\n    return tape.gradient(total, x)\n", "line 5: total = tf.reduce_sum(y)"),
    ("softmax-sum", "    with tf.GradientTape() as tape:\n        tape.watch(x)\n        p = tf.nn.softmax(x)\n"
     "        total = tf.reduce_sum(p)\n    return tape.gradient(total, x)\n", "line 4: p = tf.nn.softmax(x)"),
    ("state-breaks-path", "    state = tf.Variable(tf.zeros_like(x))\n    with tf.GradientTape() as tape:\n"
     "        tape.watch(x)\n        state.assign(x * 2.0)\n        y = tf.reduce_sum(state * 1.0)\n"
     "    return tape.gradient(y, x)\n", "line 5: state.assign(x * 2.0)"),
])
def test_is_the_learners_line_kept_for_each_cause_it_can_place(tf, cause, body, line):
    """An unwatched source: the tape's `with` line when that line turned watching off (any other unwatched source is
    placed by the analysis's finding, at the line that made it); a value out of TensorFlow: the line that took it out;
    a target made after the block: the line that made it; a softmax summed: the softmax's line; a state
    written: the assign's line. The checker quotes it (diagnose._broke_at)."""
    label = "code cell 5 (In [9])"
    recorded = _facts_of_cell(tf, label, "def f(x):\n" + body, "f", tf.constant([1.0, 2.0]))
    assert recorded["broke_at"].get(cause) == f"{label}, {line}", recorded.get("broke_at")


def test_is_the_first_step_whose_gradient_is_not_finite_kept(tf):
    label = "code cell 4 (In [7])"
    source = ("def norm(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
              "        n = tf.sqrt(tf.reduce_sum(x * x, axis=-1))\n    return tape.gradient(n, x)\n")
    # the norm of a zero row: sqrt at 0
    recorded = _facts_of_cell(tf, label, source, "norm", tf.constant([[0.0, 0.0], [3.0, 4.0]]))
    assert recorded["nonfinite_at"] == f"{label}, line 4: n = tf.sqrt(tf.reduce_sum(x * x, axis=-1))"
    safe = _facts_of_cell(tf, label, source, "norm", tf.constant([[1.0, 0.0], [3.0, 4.0]]))
    assert "nonfinite_at" not in safe
