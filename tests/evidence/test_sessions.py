"""A TF1 graph's gradients, seen when a Session runs them (gradtutor.evidence.sessions and the Session.run seam).

The seam adds its fetches to the program's own run, so what the program gets back must be what it gets without
the recording, whatever shape its fetches have (one tensor, an op, a list, a dict, a nested tuple), and a run that
feeds nothing the gradients need, or a graph whose gradients draw from an iterator, must run as it was asked (an
iterator advanced once per run). A NaN a run gives the gradients is said at the op that made it; gradients seen fine
are observed (not listed as unobserved). Sizes, values and the fetch shapes are drawn.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from gradtutor import evidence

pytestmark = pytest.mark.tf


def _model(tf, size, zero_row):
    """A small TF1 graph: rows fed through a placeholder, a weight, a norm per row, tf.gradients and minimize."""
    x = tf.compat.v1.placeholder(tf.float32, shape=(None, size))
    w = tf.Variable(np.random.default_rng(size).normal(size=(size, size)).astype("float32"))
    norms = tf.norm(tf.matmul(x, w), axis=1)  # the norm's sqrt at 0 for an all-zero row: a NaN gradient
    loss = tf.reduce_sum(norms)
    grads = tf.gradients(loss, [w])
    train = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(loss)
    rows = np.random.default_rng(size + 1).normal(size=(3, size)).astype("float32")
    if zero_row is not None:
        rows[zero_row] = 0.0
    return x, w, loss, grads, train, rows


def _runs(zero_row, record_it: bool, shapes):
    """The program's results for each drawn fetch shape, built and run with or without the recording around it."""
    import tensorflow as tf

    size = random.Random(len(shapes)).randint(2, 5)
    out = []

    def program():
        graph = tf.Graph()
        with graph.as_default():
            x, w, loss, grads, train, rows = _model(tf, size, zero_row)
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)  # feeds nothing the gradients need: run as asked
            for shape in shapes:
                fetches = {"one": loss, "op": train, "list": [loss, grads[0]], "dict": {"l": loss, "g": grads},
                           "nested": (loss, [grads[0], {"n": loss}])}[shape]
                out.append((shape, sess.run(fetches, feed_dict={x: rows})))

    if not record_it:
        program()
        return out, None
    with evidence.recording() as record:
        program()
    return out, record


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if a is None or isinstance(a, str):
        return a == b
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def test_the_program_gets_back_what_it_asked_for_and_its_gradients_are_observed():
    shapes = random.choices(["one", "op", "list", "dict", "nested"], k=random.randint(3, 6))
    plain, _ = _runs(None, False, shapes)
    seen, record = _runs(None, True, shapes)
    assert _same(plain, seen), (plain, seen)
    findings, unobserved = evidence.report(record)
    assert findings == [] and unobserved == []  # fed runs read the gradients: every one was seen, and fine
    assert record.gradient_calls >= 2  # tf.gradients and minimize's compute_gradients


def test_a_nan_a_run_gives_the_gradients_is_said_at_the_op_that_made_it():
    shapes = ["op"] + random.choices(["one", "list", "dict"], k=random.randint(1, 3))
    zero_row = random.randrange(3)  # the row fed as all zeros
    plain, _ = _runs(zero_row, False, shapes)
    seen, record = _runs(zero_row, True, shapes)
    assert _same(plain, seen)
    findings, _ = evidence.report(record)
    [found] = findings  # minimize's and tf.gradients' NaN: one root cause
    assert found["cause"] == "non-finite" and found["symptom"] == "nonfinite"
    assert "tf.norm" in found["broke_at"]["code"] and found["facts"]["how"] == "zero"


def test_gradients_that_draw_from_an_iterator_are_not_fetched_and_said_unobserved():
    import tensorflow as tf

    size, batches = random.randint(2, 4), random.randint(3, 6)
    data = np.arange(batches * size, dtype="float32").reshape(batches, 1, size)

    def run(record_it):
        graph = tf.Graph()
        with graph.as_default():
            batch = tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(data)).get_next()
            w = tf.Variable(tf.ones((size, 1)))
            loss = tf.reduce_sum(tf.matmul(batch, w))
            tf.gradients(loss, [w])
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)
            return [float(sess.run(loss)) for _ in range(batches)]

    plain = run(False)
    with evidence.recording() as record:
        seen = run(True)
    assert seen == plain  # one batch drawn per run, as without the recording
    _, unobserved = evidence.report(record)
    assert [u["why"] for u in unobserved] == ["graph"]


def test_an_all_zero_gradient_a_run_gives_is_a_finding_that_claims_no_check_it_did_not_make():
    import tensorflow as tf

    size = random.randint(2, 5)
    with evidence.recording() as record:
        graph = tf.Graph()
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None, size])
            w = tf.Variable(tf.ones((size, 1)))
            weight = tf.Variable(0.0, trainable=False)  # a loss weight left at 0
            loss = weight * tf.reduce_sum(tf.matmul(x, w))
            tf.gradients(loss, [w])
            init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(init)
            sess.run(loss, feed_dict={x: np.ones((random.randint(1, 4), size), np.float32)})
    [found], unobserved = evidence.report(record)
    assert unobserved == [] and found["cause"] == "not-known" and found["symptom"] == "zeros"
    assert "Session" in found["message"] and "ruled out" not in found["message"]  # no saturation check was run
