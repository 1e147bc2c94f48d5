"""`tf.gradients` while a compiled step is run again eagerly (traced.Tracing._replay) to find a cause.

tf.gradients works only in a graph, so run eagerly it raises. During the replay it is answered by a persistent
tape that watched the call's float arguments before the step began: every op computed from them is recorded,
and the gradient TensorFlow's graph would give comes from the tape, as a list like tf.gradients returns. The
replay's gradient call is then observed like a tape's (a NaN's birth, a cut path), at the user's tf.gradients
line. Outside the replay tf.gradients is what it was.
"""
from __future__ import annotations

import contextlib
import weakref

# the replays' tapes: their gradient calls answer the user's tf.gradients, and are reported as that call
ANSWERING = weakref.WeakSet()


@contextlib.contextmanager
def tf_gradients_on_a_tape(args, kwargs):
    import tensorflow as tf

    modules = {id(m): m for m in (tf, tf.compat.v1, tf.compat.v2, tf.compat.v2.compat.v1)}.values()
    saved = [(module, module.__dict__.get("gradients")) for module in modules if "gradients" in module.__dict__]
    tape = tf.GradientTape(persistent=True)
    ANSWERING.add(tape)

    def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
                  stop_gradients=None, unconnected_gradients=tf.UnconnectedGradients.NONE, **unused):
        sources = list(xs) if isinstance(xs, (list, tuple)) else [xs]
        with tape.stop_recording():
            return list(tape.gradient(ys, sources, output_gradients=grad_ys,
                                      unconnected_gradients=unconnected_gradients))

    with tape:
        for value in tf.nest.flatten((args, kwargs)):
            if tf.is_tensor(value) and value.dtype.is_floating:
                tape.watch(value)
        for module, _ in saved:
            module.gradients = gradients
        try:
            yield
        finally:
            for module, original in saved:
                module.gradients = original
