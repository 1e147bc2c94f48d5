"""The evidence layer in-process (as the checker will use it), `gradtutor.explain()` and `%%explain`."""
from __future__ import annotations

import numpy as np
import pytest

import gradtutor
import gradtutor.quiet  # noqa: F401 - before TensorFlow: its start-up noise stays out of the output
import tensorflow as tf
from gradtutor import evidence

pytestmark = pytest.mark.tf


def slice_after_the_tape(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        probabilities = tf.nn.softmax(x * 2.0)
    first = probabilities[:, 0]
    return tape.gradient(first, x)


def test_recording_around_one_call_gives_findings_with_cause_ids():
    with evidence.recording() as record:
        value = slice_after_the_tape(tf.ones((2, 3)))
    assert value is None
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "outside-tape"
    assert finding["broke_at"]["code"] == "first = probabilities[:, 0]"
    assert finding["call"] == "gradient" and finding["file"] == __file__


def test_nothing_of_tensorflow_stays_patched_after_the_block():
    from tensorflow.python.eager import backprop, context
    from tensorflow.python.framework import ops

    before = (dict(vars(backprop.GradientTape)), tf.gradients, np.log, tf.config.functions_run_eagerly())
    with evidence.recording():
        assert context.context().op_callbacks
        assert not isinstance(np.log, np.ufunc)
    assert (dict(vars(backprop.GradientTape)), tf.gradients, np.log, tf.config.functions_run_eagerly()) == before
    assert not context.context().op_callbacks
    assert "__array_function__" not in vars(ops._EagerTensorBase)


def test_the_context_manager_prints_the_findings(capsys):
    x = tf.constant(2.0)
    with gradtutor.explain():
        with tf.GradientTape() as tape:
            y = x * x
        assert tape.gradient(y, x) is None
    out = capsys.readouterr().out
    assert "[unwatched]" in out and "tape.watch(x)" in out


def test_a_correct_block_says_so(capsys):
    v = tf.Variable(3.0)
    with gradtutor.explain() as record:
        with tf.GradientTape() as tape:
            y = v * v
        assert float(tape.gradient(y, v)) == 6.0
    assert evidence.analyse(record) == []
    assert "came back fine (1 call checked)" in capsys.readouterr().out


class FakeShell:
    """Just what `%load_ext` and a cell magic need of IPython's shell."""

    def __init__(self):
        self.magics, self.namespace = {}, {"tf": tf}

    def register_magic_function(self, function, magic_kind, magic_name):
        self.magics[(magic_kind, magic_name)] = function

    def run_cell(self, cell, store_history=False):
        exec(compile(cell, "<cell>", "exec"), self.namespace)  # noqa: S102 - a notebook cell, as IPython runs it
        return type("Result", (), {"success": True})()


def test_the_cell_magic(capsys):
    shell = FakeShell()
    gradtutor.load_ipython_extension(shell)
    magic = shell.magics[("cell", "explain")]
    magic("", "x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    y = tf.reduce_sum(x)\n"
              "g = t.gradient(y, x)\n")
    assert shell.namespace["g"] is None
    assert "[unwatched]" in capsys.readouterr().out


def test_a_clip_that_clips_everything_is_saturation():
    v = tf.Variable(tf.ones((3,)))
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.clip_by_value(v * 5.0, 0.0, 1.0))
        assert not tape.gradient(y, v).numpy().any()
    [finding] = evidence.analyse(record)
    assert (finding["cause"], finding["symptom"], finding["sources"]) == ("saturation", "zeros", ["v"])
    assert "clip_by_value" in finding["broke_at"]["code"]


@pytest.mark.parametrize("weight, causes", [(1.0, ["saturation"]), (0.0, [])])
def test_the_probe_reports_a_saturated_op_only_when_the_target_depends_on_it(weight, causes):
    """A zero weight after the saturated sigmoid makes the zero gradient the true one: no finding."""
    v = tf.Variable([[20.0], [25.0]])
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            y = weight * tf.reduce_sum(tf.sigmoid(v))
        assert not tape.gradient(y, v).numpy().any()
    assert [f["cause"] for f in evidence.analyse(record)] == causes


@pytest.mark.parametrize("seed", range(3))
def test_an_all_zero_gradient_is_reported_and_says_whether_the_target_moves_with_the_source(seed):
    """No all-clear for an all-zero gradient: a factor of 0 leaves the target flat (zero is exact); a gradient
    function that returns zeros for a function that does move is not the slope."""
    rng = np.random.default_rng(seed)
    v = tf.Variable(rng.normal(size=int(rng.integers(2, 9))).astype("float32"))

    @tf.custom_gradient
    def scaled(x):
        return float(rng.uniform(0.5, 2.0)) * x, lambda dy: dy * 0.0

    with evidence.recording() as record:
        with tf.GradientTape(persistent=True) as tape:
            ignored = tf.reduce_sum(tf.square(v) * 0.0)
            hidden = tf.reduce_sum(tf.square(scaled(v)))
        assert not tape.gradient(ignored, v).numpy().any()
        assert not tape.gradient(hidden, v).numpy().any()
    assert evidence.analyse(record) == []  # no cause rule speaks for either
    findings, unobserved = evidence.report(record)
    assert unobserved == []
    assert [(f["cause"], f["symptom"], f["facts"]["probe"]) for f in findings] == \
        [("not-known", "zeros", "flat"), ("not-known", "zeros", "moves")]
    assert "zero is the exact gradient here" in findings[0]["message"]
    assert "not its true slope" in findings[1]["message"]


@pytest.mark.parametrize("seed", range(2))
def test_a_sample_drawn_in_the_shape_of_the_source_is_not_drawn_again_by_the_probe(seed):
    """A policy's log-probability of its own reparameterised sample, `mu + std * normal(shape(mu))`, does not depend on
    mu (its terms cancel): moved a little, the target stays where it was. The probe runs the ops after mu again, and a
    shape read does not move, so the same noise is used, not a new draw that would seem to move the target."""
    rng = np.random.default_rng(seed)
    w = tf.Variable(rng.normal(size=(3, 2)).astype("float32"))
    x = tf.constant(rng.normal(size=(16, 3)).astype("float32"))
    advantage = tf.constant(rng.normal(size=(16,)).astype("float32"))
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            mu = x @ w
            action = mu + 0.5 * tf.random.normal(tf.shape(mu))
            loss = -tf.reduce_mean(tf.reduce_sum(-0.5 * tf.square((action - mu) / 0.5), axis=-1) * advantage)
        assert not tape.gradient(loss, w).numpy().any()
    findings, _ = evidence.report(record)
    assert [(f["cause"], f["symptom"], f["facts"]["probe"]) for f in findings] == [("not-known", "zeros", "flat")]


@pytest.mark.parametrize("seed", range(3))
def test_a_layer_frozen_by_trainable_false_is_named_at_the_line_that_froze_it(seed):
    """Keras leaves a frozen layer out of trainable_variables: the empty list's cause is the freezing line, and a
    layer unfrozen again before its loop is no finding."""
    import inspect

    import keras

    rng = np.random.default_rng(seed)
    width = int(rng.integers(2, 7))
    model = keras.Sequential([keras.Input((width,)), keras.layers.Dense(int(rng.integers(1, 4)))])
    x = tf.constant(rng.normal(size=(4, width)), tf.float32)
    unfreeze = bool(rng.integers(0, 2))
    with evidence.recording() as record:
        model.trainable = False; froze_at = inspect.currentframe().f_lineno  # noqa: E702 - the line to name
        if unfreeze:
            model.trainable = True
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x))
        tape.gradient(loss, model.trainable_variables)
    findings = evidence.analyse(record)
    if unfreeze:
        assert findings == []
        return
    [finding] = findings
    assert (finding["cause"], finding["broke_at"]["line"], finding["facts"]["why"]) == ("unwatched", froze_at, "frozen")
    assert "trainable = False" in finding["message"] and "trainable = True" in finding["fix"]


@pytest.mark.parametrize("seed", range(3))
def test_a_value_given_to_np_argmax_is_cut_by_the_argmax_not_by_leaving_tensorflow(seed):
    rng = np.random.default_rng(seed)
    w = tf.Variable(rng.normal(size=(3, int(rng.integers(2, 6)))).astype("float32"))
    x = tf.constant(rng.normal(size=(5, 3)), tf.float32)
    through_copy = bool(rng.integers(0, 2))  # np.argmax(t) or np.argmax(t.numpy()): the same cut
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            scores = tf.matmul(x, w)
            picked = np.argmax(scores.numpy() if through_copy else scores, axis=1)
            loss = tf.reduce_sum(tf.cast(picked, tf.float32))
        assert tape.gradient(loss, w) is None
    [finding] = evidence.analyse(record)
    assert (finding["cause"], finding["facts"]["op"]) == ("no-gradient-op", "np.argmax")
    assert "np.argmax" in finding["broke_at"]["code"] and "logits" in finding["fix"]


def test_keras_no_gradients_is_explained_even_when_caught():
    import keras
    from keras.src.optimizers.base_optimizer import BaseOptimizer

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    other = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.1)
    before = dict(vars(BaseOptimizer))
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(other(tf.ones((4, 2))))
        grads = tape.gradient(loss, model.trainable_variables)
        with pytest.raises(ValueError, match="No gradients provided"):
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
    assert dict(vars(BaseOptimizer)) == before
    [applied] = [f for f in evidence.analyse(record) if f["call"] == "apply_gradients"]
    assert applied["cause"] == "not-used" and applied["symptom"] == "error"
    assert "No gradients provided" in applied["message"] and applied["broke_at"]["code"].startswith("loss =")


def watched_after_use(x):
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x ** 3)
        tape.watch(x)
    return tape.gradient(y, x)


def test_a_watch_after_the_ops_that_used_the_source_is_unwatched_at_the_watch_line():
    with evidence.recording() as record:
        assert watched_after_use(tf.constant([1.0, 2.0])) is None
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "unwatched"
    assert finding["broke_at"]["code"] == "tape.watch(x)"


def test_an_unwatched_tensor_is_placed_at_the_line_that_made_it_not_at_the_tape():
    def made_before_the_tape(values):
        made = tf.constant(values)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(made ** 3)
        return tape.gradient(y, made)

    values = np.random.default_rng().normal(size=int(np.random.default_rng().integers(1, 9))).astype(np.float32)
    with evidence.recording() as record:
        assert made_before_the_tape(values) is None
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "unwatched" and finding["broke_at"]["code"] == "made = tf.constant(values)"


def test_a_watch_before_use_gives_no_finding():
    def watched_first(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x ** 3)
        return tape.gradient(y, x)

    with evidence.recording() as record:
        assert watched_first(tf.constant([1.0, 2.0])) is not None
    assert evidence.analyse(record) == []


def test_a_frozen_variable_watched_after_the_loss_is_unwatched_at_the_watch_line():
    w = tf.Variable([1.0, 2.0], trainable=False)
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w)
            tape.watch(w)
        assert tape.gradient(loss, w) is None
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "unwatched" and finding["broke_at"]["code"] == "tape.watch(w)"


class FixShell(FakeShell):
    """The shell with the namespace name IPython gives it."""

    def __init__(self):
        super().__init__()
        self.user_ns = self.namespace


def test_the_cell_magic_with_fix_shows_the_verified_patched_cell(capsys):
    shell = FixShell()
    gradtutor.load_ipython_extension(shell)
    cell = ("x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    y = tf.reduce_sum(x * x)\n"
            "g = t.gradient(y, x)\n")
    shell.magics[("cell", "explain")]("--fix", cell)
    out = capsys.readouterr().out
    assert shell.namespace["g"] is None  # the notebook's own names are the cell's, not the patched copy's
    assert "verified: the gradient for x is now finite and non-zero; matches central differences" in out
    assert "+    t.watch(x)" in out and "fix: 1/1 verified" in out


def test_explain_fix_true_logs_the_patch_for_the_enclosing_cell(capsys):
    import linecache

    code = ("import gradtutor\nv = tf.constant(2.0)\nwith gradtutor.explain(fix=True):\n"
            "    with tf.GradientTape() as tape:\n        y = v * v\n    g = tape.gradient(y, v)\n")
    linecache.cache["<block>"] = (len(code), None, code.splitlines(keepends=True), "<block>")
    namespace = {"tf": tf}
    exec(compile(code, "<block>", "exec"), namespace)  # noqa: S102 - a notebook cell, as IPython runs it
    out = capsys.readouterr().out
    assert namespace["g"] is None and "[unwatched]" in out
    assert "+        tape.watch(v)" in out and "fix: 1/1 verified" in out


@pytest.mark.parametrize("slope, wrong", [(3.0, False), (2.0, True)])
def test_the_central_difference_check_catches_a_wrong_gradient(slope, wrong):
    """A custom gradient that lies (2x² said to have slope 2x instead of 4x): the replayed ops say otherwise."""
    from gradtutor.explain.fix import central

    @tf.custom_gradient
    def f(x):
        return 1.5 * x * x, lambda upstream: upstream * slope * x

    v = tf.Variable([1.0, -2.0, 0.5])
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(f(v))
        grad = tape.gradient(y, v)
        error = central.error(record.graph, y, v, grad)
    assert error is not None and (error > 0.1) == wrong and (error < 1e-6) == (not wrong)
