"""Compiled code under the evidence layer: traced once and analysed then, run compiled after, values checked.

In-process, as `gradtutor explain` and the checker use it: a `tf.function` is not made to run eagerly,
its trace is what is analysed, a NaN that appears late in a compiled loop is reported with its step,
and an eager loop's gradient values are read on sampled calls (checks.FIRST_CALLS, then every EVERY-th).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradtutor.quiet  # noqa: F401 - before TensorFlow: its start-up noise stays out of the output
import tensorflow as tf
from gradtutor import evidence
from gradtutor.evidence.reading import checks
from gradtutor.evidence.recording.compiled import monitors

pytestmark = pytest.mark.tf


def test_a_tf_function_is_traced_once_analysed_then_and_runs_compiled():
    w = tf.Variable([1.0, 2.0])
    traces = []

    @tf.function
    def step(x):
        traces.append(tf.executing_eagerly())
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.stop_gradient(w * x))
        return tape.gradient(loss, w)

    with evidence.recording() as record:
        results = [step(tf.constant([3.0, 4.0])) for _ in range(5)]
        assert not tf.config.functions_run_eagerly()
    assert traces == [False] and results == [None] * 5  # one trace, in a graph; every call compiled
    [finding] = evidence.analyse(record)
    assert (finding["cause"], finding["broke_at"]["code"]) == (
        "stop-gradient", "loss = tf.reduce_sum(tf.stop_gradient(w * x))")
    assert record.gradient_calls == 5  # the four compiled calls count as checked


@pytest.mark.parametrize("jit", [False, True])  # XLA's reduce_max drops a NaN: the check must not rely on it
def test_a_nan_that_appears_at_a_late_compiled_step_is_reported_with_that_step(jit):
    w = tf.Variable([1.0, 1.0])
    optimizer = tf.keras.optimizers.SGD(0.1)

    @tf.function(jit_compile=jit)
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w))  # w falls by 0.05 a step: 0 (sqrt'(0) = inf) at step 21
        grads = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip([tf.ones_like(w) * 0.5], [w]))
        return grads

    with evidence.recording() as record:
        for _ in range(25):
            step()
    [finding] = evidence.analyse(record)
    assert finding["symptom"] == "nonfinite" and finding["cause"] == "non-finite"
    assert finding["broke_at"]["code"].startswith("loss = tf.reduce_sum(tf.sqrt(w))")
    assert finding["facts"]["first_step"] == "21"


@pytest.mark.parametrize("seed", range(2))
def test_a_nan_born_after_the_dense_reads_is_replayed_and_said_at_its_exact_step(seed):
    late = int(np.random.default_rng(seed).integers(monitors.DENSE_READS + 2, 6 * monitors.DENSE_READS))
    w = tf.Variable([(late - 1) / 16] * 2)  # falls by 1/16 a step (exact in float32): 0 at step `late`
    optimizer = tf.keras.optimizers.SGD(0.125)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w))
        grads = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip([tf.ones_like(w) * 0.5], [w]))
        return grads

    with evidence.recording() as record:
        for _ in range(late + monitors.MAX_GAP + 1):  # read at most MAX_GAP calls later, replayed at the next
            step()
    [finding] = evidence.analyse(record)
    assert (finding["symptom"], finding["cause"]) == ("nonfinite", "non-finite")
    assert finding["facts"]["first_step"] == str(late)


@pytest.mark.parametrize("seed", range(2))
def test_a_zero_on_one_late_call_only_is_not_known_and_says_a_later_call_ran_again_not_that_step(seed):
    rng = np.random.default_rng(seed)
    calls = int(rng.integers(3 * monitors.DENSE_READS, 6 * monitors.DENSE_READS))
    masked = int(rng.integers(monitors.DENSE_READS + 2, calls - monitors.MAX_GAP // 4))  # its weights are not kept
    w = tf.Variable(rng.uniform(0.5, 2.0, size=4).astype("float32"))

    @tf.function
    def step(mask):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * mask)  # a batch whose mask is empty: this call's gradient is all zeros
        return tape.gradient(loss, w)

    with evidence.recording() as record:
        for call in range(1, calls + 1):
            step(tf.constant(0.0 if call == masked else 1.0, shape=[4]))
    [finding], unobserved = evidence.report(record)
    assert unobserved == []
    assert (finding["symptom"], finding["cause"]) == ("zeros", "not-known")
    assert "a later call, run eagerly to look into it, did not show it" in finding["message"]
    assert f"calls seen: {calls}" in finding["message"]


def _unread_calls(upto: int) -> list[int]:
    """The calls after which a function's monitors are not read (monitors.FunctionState.due)."""
    state, unread = monitors.FunctionState(), []
    for state.calls in range(1, upto):
        if state.due():
            state.read_at = state.calls
        else:
            unread.append(state.calls)
    return unread


@pytest.mark.parametrize("seed", range(2))
def test_a_nan_in_a_last_step_that_no_read_followed_is_a_finding_when_the_recording_ends(seed):
    rng = np.random.default_rng(seed)
    last = int(rng.choice(_unread_calls(8 * monitors.DENSE_READS)))
    w = tf.Variable(rng.uniform(0.5, 2.0, size=3).astype("float32"))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w * x))  # x = 0: d/dw = x / (2 sqrt(w x)) = 0 / 0
        return tape.gradient(loss, w)

    with evidence.recording() as record:
        for call in range(1, last + 1):
            step(tf.constant(0.0 if call == last else 1.0))
    findings, unobserved = evidence.report(record)
    assert [f["symptom"] for f in findings] == ["nonfinite"] and unobserved == []


def test_an_eager_loop_reads_gradient_values_on_sampled_calls():
    w = tf.Variable(1.0)
    late = checks.FIRST_CALLS + 3  # a NaN from this call on: first read at the next multiple of EVERY
    with evidence.recording() as record:
        for call in range(1, late + checks.EVERY + 1):
            with tf.GradientTape() as tape:
                loss = tf.sqrt(w * 0.0) if call >= late else w * w
            tape.gradient(loss, w)
            if call == late:
                assert evidence.analyse(record) == []  # not read on this call
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "non-finite" and finding["broke_at"]["code"].startswith("loss = tf.sqrt(w * 0.0)")


@pytest.mark.parametrize("seed", range(3))
def test_tf_gradients_in_a_compiled_step_is_observed_its_none_now_its_nan_at_the_call_it_appears(seed):
    """tf.gradients in a graph is a gradient call like a traced tape's: never an all-clear it did not earn. The call
    whose check first saw the NaN is replayed eagerly with tf.gradients answered by a tape (graph_replay.py), so the
    norm's sqrt at 0 is named, and so is the source the target never read."""
    import numpy as np

    rng = np.random.default_rng(seed)
    start = rng.normal(size=int(rng.integers(2, 6))).astype("float32")
    a, unused = tf.Variable(start), tf.Variable(1.0)
    nan_at = int(rng.integers(2, 5))  # the call whose norm is taken at 0

    @tf.function
    def step(target):
        return tf.gradients(tf.norm(a - target), [a, unused])

    with evidence.recording() as record:
        for call in range(1, 6):
            grads = step(tf.constant(start if call == nan_at else start + 1.0))
            assert grads[1] is None
    findings, unobserved = evidence.report(record)
    assert unobserved == []
    assert sorted((f["cause"], f["symptom"]) for f in findings) == [("non-finite", "nonfinite"), ("not-used", "none")]
    assert {f["broke_at"]["code"] for f in findings} == {"return tf.gradients(tf.norm(a - target), [a, unused])"}
    nan = next(f for f in findings if f["cause"] == "non-finite")
    assert (nan["facts"]["op"], nan["facts"]["first_step"]) == ("Sqrt", str(nan_at))  # the call it came at


def _sqrt_program(xs):
    """A compiled Adam step on sqrt(w·x), fed the rows of XS: a row of zeros makes its gradient 0/0 = NaN."""
    w = tf.Variable(np.linspace(0.5, 2.0, xs.shape[1]).astype("float32"))
    optimizer = tf.keras.optimizers.Adam(0.01)  # an Adam step moves w by about 0.01: w stays above 0.5 - 0.32

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w * x))
        grads = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(grads, [w]))
        return loss

    losses = [float(step(tf.constant(x))) for x in xs]
    return losses, w.numpy(), int(optimizer.iterations.numpy())


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_the_step_whose_check_got_worse_runs_again_from_its_start_and_the_program_goes_on_unchanged(seed):
    """One of a function's first calls makes a NaN: that very step runs again eagerly from the values it started
    with (snapshot.py), so the op that made the NaN is found and not the first op fed a NaN weight, and the
    values the real call left are put back: the program's losses, weights and optimizer state are what they are
    without gradtutor."""
    rng = np.random.default_rng(seed)
    bad = int(rng.integers(1, monitors.DENSE_READS))
    xs = rng.uniform(0.5, 2.0, size=(bad + int(rng.integers(1, 6)), int(rng.integers(2, 6)))).astype("float32")
    xs[bad - 1] = 0.0
    plain = _sqrt_program(xs)
    with evidence.recording() as record:
        explained = _sqrt_program(xs)
    np.testing.assert_array_equal(plain[0], explained[0])  # NaN where NaN, the same values elsewhere
    np.testing.assert_array_equal(plain[1], explained[1])
    assert plain[2] == explained[2]
    [finding] = evidence.analyse(record)
    assert (finding["symptom"], finding["cause"]) == ("nonfinite", "non-finite")
    assert finding["broke_at"]["code"].startswith("loss = tf.reduce_sum(tf.sqrt(w * x))")
    assert finding["facts"]["first_step"] == str(bad) and finding["facts"]["rerun"] == "same"


def _iterator_program(xs, show):
    """A compiled step that takes its batch from a dataset's iterator itself (and, with SHOW, prints the loss with
    tf.print): effects a second run would repeat, so the step is never run twice."""
    w = tf.Variable(np.linspace(0.5, 2.0, xs.shape[1]).astype("float32"))
    optimizer = tf.keras.optimizers.SGD(0.01)
    batches = iter(tf.data.Dataset.from_tensor_slices(xs))

    @tf.function
    def step():
        x = next(batches)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w * x))
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        if show:
            tf.print("loss", loss)
        return loss

    return [float(step()) for _ in range(len(xs))]


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_a_step_that_takes_its_own_batch_or_prints_is_not_run_twice(seed, capfd):
    rng = np.random.default_rng(seed)
    bad = int(rng.integers(1, monitors.DENSE_READS))
    xs = rng.uniform(0.5, 2.0, size=(bad + int(rng.integers(2, 6)), 3)).astype("float32")
    xs[bad - 1] = 0.0
    show = bool(rng.integers(2))
    plain = _iterator_program(xs, show)
    printed = capfd.readouterr()
    with evidence.recording() as record:
        explained = _iterator_program(xs, show)
    # no batch taken twice, none skipped; the replayed call (the one after the NaN) ran eagerly, which may round its
    # loss differently from the compiled graph in the last bit
    np.testing.assert_allclose(plain, explained, rtol=1e-6)
    assert capfd.readouterr().err.count("loss") == printed.err.count("loss") == (len(xs) if show else 0)
    [finding] = evidence.analyse(record)
    assert finding["symptom"] == "nonfinite" and finding["facts"]["first_step"] == str(bad)
    assert finding["facts"]["rerun"] == "next"


@pytest.mark.parametrize("seed", range(2))
def test_a_replayed_call_leaves_the_programs_numbers_as_a_plain_run_has_them(seed):
    """The call after a late NaN is run eagerly on a copy of the state to look into it, and then compiled, as it would
    have run: a replay kept in its place would skip the compiled random op's draw there, and every later draw (and
    the weights, through eager kernels' other rounding) would differ from the plain run's."""
    late = int(np.random.default_rng(seed).integers(monitors.DENSE_READS + 2, 4 * monitors.DENSE_READS))

    def run():
        tf.random.set_seed(seed)
        w = tf.Variable([(late - 1) / 16] * 2)  # 0 at step `late`: sqrt'(0) is inf

        @tf.function
        def step():
            noise = tf.random.uniform([2])  # the program's own draw, made before the checks' ops
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.sqrt(w))
            grads = tape.gradient(loss, [w])
            w.assign_sub(tf.fill([2], 1 / 16))
            return noise, grads[0]

        return [step() for _ in range(late + monitors.MAX_GAP + 4)], w.numpy()

    plain, plain_w = run()
    with evidence.recording() as record:
        seen, seen_w = run()
    [finding] = evidence.analyse(record)
    assert (finding["cause"], finding["facts"]["first_step"]) == ("non-finite", str(late))
    assert [n.numpy().tolist() for n, _ in seen] == [n.numpy().tolist() for n, _ in plain]
    assert np.array_equal(seen_w, plain_w)


def test_a_compiled_step_given_numpy_arrays_is_replayed_with_them_as_the_tensors_it_received():
    """Run eagerly, a NumPy argument would stay an array, which Keras refuses beside a tensor in one call; the replay
    gives the code what its trace received, so the late NaN is explained at its line (and the program never raises)."""
    late = monitors.DENSE_READS + 3
    w = tf.Variable([(late - 1) / 16] * 2)
    first, second = tf.keras.Input((3,)), tf.keras.Input((1,))
    critic = tf.keras.Model([first, second], tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([first, second])))

    @tf.function
    def step(states):
        with tf.GradientTape() as tape:
            value = critic([states, tf.ones((4, 1))])  # an argument beside a tensor, as DDPG's critic is called
            loss = tf.reduce_sum(tf.sqrt(w)) + 0.0 * tf.reduce_sum(value)
        grads = tape.gradient(loss, [w])
        w.assign_sub(tf.fill([2], 1 / 16))
        return grads

    with evidence.recording() as record:
        for _ in range(late + monitors.MAX_GAP + 2):
            step(np.ones((4, 3), np.float32))
    [finding] = evidence.analyse(record)
    assert (finding["cause"], finding["facts"]["first_step"]) == ("non-finite", str(late))
    assert finding["broke_at"]["code"].startswith("loss = tf.reduce_sum(tf.sqrt(w))")


def test_what_a_step_run_again_to_look_into_it_prints_is_not_printed(capfd):
    """fit's first step, whose gradients are all zero, is run again eagerly on its rows after the call; a tf.print in
    the loss prints from TensorFlow's kernel, past sys.stdout: the program's output stays the plain run's."""
    def run():
        tf.keras.utils.set_random_seed(2)

        def loss(y_true, y_pred):
            tf.print("the loss ran")
            return 0.0 * tf.reduce_mean(tf.square(y_true - y_pred))

        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss=loss)
        model.fit(np.ones((8, 3), np.float32), np.ones((8, 1), np.float32), batch_size=4, epochs=1, verbose=0)

    run()
    plain = capfd.readouterr()
    with evidence.recording() as record:
        run()
    seen = capfd.readouterr()
    assert evidence.report(record)[0], "the zero gradients were not found"
    assert (seen.out + seen.err).count("the loss ran") == (plain.out + plain.err).count("the loss ran") == 2
