"""An integer (or bool) tensor given to tape.watch: TensorFlow only warns and does not watch it. One root cause,
one finding: cannot-watch at the watch (said as a warning, not as an exception), and the None the gradient call
then returns for that same tensor is not a second finding. Dtypes and values are drawn."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.tf


def test_a_watched_integer_tensor_is_one_finding_at_the_watch_naming_where_it_was_made():
    import tensorflow as tf

    from gradtutor import evidence

    dtype = random.choice([tf.int32, tf.int64, tf.uint8])
    values = [random.randint(1, 9) for _ in range(random.randint(2, 5))]
    with evidence.recording() as record:
        x = tf.constant(values, dtype=dtype)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
        assert tape.gradient(y, x) is None
    findings, unobserved = evidence.report(record)
    watched = _line_of("tape.watch(x)")
    assert [(f["cause"], f["call"], f["line"]) for f in findings] == [("cannot-watch", "watch", watched)], findings
    assert findings[0]["broke_at"]["line"] == watched and "only logs a warning" in findings[0]["message"]
    assert "raised" not in findings[0]["message"] and unobserved == []


def test_a_watched_integer_beside_another_source_is_said_alone():
    """tensorflow#56968's shape: the integer ids are watched, the gradient is asked of a float table: no None."""
    import tensorflow as tf

    from gradtutor import evidence

    rows = random.randint(3, 6)
    with evidence.recording() as record:
        ids = tf.constant([random.randrange(rows) for _ in range(3)])
        table = tf.Variable(tf.random.normal((rows, 2)))
        with tf.GradientTape() as tape:
            tape.watch(ids)
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
        assert tape.gradient(loss, table) is not None
    findings, _ = evidence.report(record)
    assert [(f["cause"], f["call"]) for f in findings] == [("cannot-watch", "watch")], findings


def _line_of(code: str) -> int:
    """The line of this file that holds `code`."""
    lines = open(__file__, encoding="utf-8").read().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.strip().startswith(code))
