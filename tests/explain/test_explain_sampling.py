"""Eager loops under the evidence layer: whole tape blocks recorded on sampled steps (evidence/sampling.py).

The first FIRST_TAPES tapes of each `with` line are recorded, then every EVERY_TAPE-th; in between no
op is recorded. A bad gradient from an unrecorded tape makes the next tape of its site recorded, and
the finding, found there, says at which step it was first seen.
"""
from __future__ import annotations

import pytest

import gradtutor.quiet  # noqa: F401 - before TensorFlow: its start-up noise stays out of the output
import tensorflow as tf
from gradtutor import evidence
from gradtutor.evidence.reading import checks
from gradtutor.evidence.recording import sampling

pytestmark = pytest.mark.tf


def test_ops_between_sampled_tapes_are_not_recorded_and_the_fast_path_is_tensorflows():
    from tensorflow.python import pywrap_tfe

    w = tf.Variable([1.0, 2.0])
    logged = []
    with evidence.recording() as record:
        patched = pywrap_tfe.TFE_Py_FastPathExecute
        for _ in range(sampling.EVERY_TAPE + 1):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * w)
            tape.gradient(loss, w)
            logged.append((record.graph.seq, record.graph.off, pywrap_tfe.TFE_Py_FastPathExecute is patched))
    first = sampling.FIRST_TAPES
    assert all(not off and fast for _, off, fast in logged[:first - 1])  # the next tape is recorded
    assert all(off and not fast for _, off, fast in logged[first:sampling.EVERY_TAPE - 2])
    quiet = [seq for seq, _, _ in logged[first:sampling.EVERY_TAPE - 2]]
    assert quiet[-1] - quiet[0] <= 2 * len(quiet)  # only the gradient steps gradtutor adds itself
    assert not logged[sampling.EVERY_TAPE - 2][1]  # the step before a sampled tape turns recording on
    assert evidence.analyse(record) == []


def test_a_none_first_seen_on_an_unrecorded_tape_is_explained_on_the_next_with_its_step():
    w = tf.Variable(1.0)
    late = sampling.FIRST_TAPES + 4  # an unrecorded tape
    with evidence.recording() as record:
        for step in range(1, late + 3):
            with tf.GradientTape() as tape:
                loss = tf.stop_gradient(w) * 2.0 if step >= late else w * w
            tape.gradient(loss, w)
            if step == late:
                assert evidence.analyse(record) == []  # not explained from partial evidence
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "stop-gradient" and finding["symptom"] == "none"
    assert finding["broke_at"]["code"].startswith("loss = tf.stop_gradient(w)")
    assert finding["facts"]["first_seen_step"] == str(late)


def test_a_forward_pass_before_the_tape_is_seen_on_a_sampled_step():
    w = tf.Variable(1.0)
    late = sampling.EVERY_TAPE + 3
    with evidence.recording() as record:
        for step in range(1, late + 3):
            prediction = w * 3.0  # before the tape, from `late` on used as the loss
            with tf.GradientTape() as tape:
                loss = prediction * 2.0 if step >= late else w * w
            tape.gradient(loss, w)
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "outside-tape" and finding["broke_at"]["code"].startswith("prediction = w * 3.0")
    assert finding["facts"]["first_seen_step"] == str(late)


def test_a_site_first_seen_late_is_recorded_from_its_first_tape():
    w = tf.Variable(1.0)
    with evidence.recording() as record:
        for _ in range(sampling.FIRST_TAPES + 2):  # the training site goes unrecorded
            with tf.GradientTape() as tape:
                loss = w * w
            tape.gradient(loss, w)
        assert record.graph.off
        with tf.GradientTape() as other:
            loss = tf.cast(tf.cast(w, tf.int32), tf.float32)
        other.gradient(loss, w)
        with tf.GradientTape() as other:
            loss = tf.cast(tf.cast(w, tf.int32), tf.float32)
        other.gradient(loss, w)
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "integer-path" and "tf.cast(tf.cast(w, tf.int32)" in finding["broke_at"]["code"]


def test_a_nan_read_on_a_sampled_value_call_is_explained_on_the_next_tape():
    w = tf.Variable(1.0)
    late = checks.FIRST_CALLS + 3
    with evidence.recording() as record:
        for step in range(1, late + checks.EVERY + 2):
            with tf.GradientTape() as tape:
                loss = tf.sqrt(w * 0.0) if step >= late else w * w
            tape.gradient(loss, w)
    [finding] = evidence.analyse(record)
    assert finding["cause"] == "non-finite" and finding["facts"]["first_seen_step"] == str(checks.FIRST_CALLS + 10)
