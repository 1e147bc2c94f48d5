"""The one row a compiled step adds to its monitor's ring (monitors.py): the sum of each floating gradient's
magnitudes, and a 1 that says the step ran the check.

The sum of magnitudes is NaN or inf exactly when an element is (on every backend: XLA's max drops a NaN), 0 exactly
when every element is, and its mean is below TINY whenever the largest magnitude is. On a step of a millisecond run
by one thread, each op of the graph costs about 3 µs whatever it reads, so a gradient gets two (`Abs`, `Sum`) and the
row one more. Cheaper ways were measured and left: the sum of squares (`L2Loss`, one op) is 0 for values below 1e-19
and inf above 1e19, so it could not tell zeros from tiny values nor inf from large ones; joining the small gradients
into one `Abs` and one `UnsortedSegmentSum` cost more than it saved (the join copies them).
"""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.symptoms import TINY  # the same threshold, applied to what the graph summed

HALF = ("float16", "bfloat16")  # summed as float32: their own sum overflows at 65504 (bfloat16 rounds it away)


def row(tf, floats):
    """In the graph being traced: the row (float32, one column per floating gradient and a last one of 1), the
    index of the gradient in each column, and the sum below which each column may be tiny (TINY times its size). An
    empty gradient is fine, and left out. `floats`: (index, gradient) of a call's floating gradients."""
    sums, where, limits, axes = [], [], [], {}
    for index, gradient in floats:
        values = getattr(gradient, "values", gradient)  # IndexedSlices: its rows
        elements, rank = values.shape.num_elements(), values.shape.rank
        if elements == 0:
            continue
        if values.dtype.name in HALF:
            values = tf.cast(values, tf.float32)
        magnitude = tf.abs(values)  # a complex gradient: its moduli (NaN and inf stay, zeros stay zeros)
        if rank is None:
            total = tf.reduce_sum(magnitude)
        else:  # the axes of one rank made once, not once per gradient
            if rank not in axes:
                axes[rank] = tf.constant(list(range(rank)), tf.int32)
            total = tf.raw_ops.Sum(input=magnitude, axis=axes[rank])
        if total.dtype != tf.float32:
            total = tf.cast(total, tf.float32)
        if elements is None:  # a size known only when run: its mean is kept; the mean of nothing is fine
            size = tf.cast(tf.size(values), tf.float32)
            total, elements = tf.where(size > 0, total / tf.maximum(size, 1.0), 1.0), 1
        sums.append(total)
        limits.append(TINY * elements)
        where.append(index)
    return tf.stack(sums + [tf.constant(1.0)]), where, np.asarray(limits, np.float64)
