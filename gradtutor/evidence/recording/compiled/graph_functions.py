"""The gradient calls that exist only in graphs: `tf.gradients` and `tf.hessians` (and the numpy_function family the
same modules hold), patched in every module TensorFlow and Keras 2 reach them through."""
from __future__ import annotations

import functools

from gradtutor.evidence.recording.frames import user_frame
from gradtutor.evidence.recording.listening import caller


def patch(record, tf, observed) -> None:
    """tf.gradients (graph-only) and tf.numpy_function / py_func (Python on numpy arrays, no gradient), each handed
    to the reading's wrapper; `observed(record, kind, asker, call)` is instrument's record of one gradient call."""
    reader = record.reader
    # tf.hessians is tf.gradients twice (gradients_impl calls its own, unpatched): called eagerly, it raises the same
    wrappers = {"gradients": reader.tf_gradients_wrapper, "hessians": reader.tf_gradients_wrapper,
                "numpy_function": reader.numpy_function_wrapper, "py_func": reader.numpy_function_wrapper}
    # tf.compat.v2.compat.v1 is a module of its own: Keras 2's backend.gradients calls tf.compat.v1.gradients
    # through it (tf_keras imports tensorflow.compat.v2 as tf)
    modules = (tf, tf.compat.v1, tf.compat.v2, tf.compat.v2.compat.v1)
    for module in {id(module): module for module in modules}.values():
        saved = {name: module.__dict__.get(name) for name in wrappers if module.__dict__.get(name) is not None}
        record.originals.append((module, saved))
        for name, original in saved.items():
            wrapped = wrappers[name](record, original)
            setattr(module, name, _graph_gradients(record, wrapped, observed) if name == "gradients" else wrapped)


def _graph_gradients(record, gradients, observed):
    """tf.gradients in a graph being traced is a gradient call like a traced tape's: its None is seen now, its values
    by the same in-graph check (traced.Tracing.watch_gradients), so a compiled step's tf.gradients is observed.
    Called eagerly it raises, and the reading names that (checks.tf_gradients_wrapper)."""
    import tensorflow as tf

    @functools.wraps(gradients)
    def observed_gradients(*args, **kwargs):
        if tf.executing_eagerly():
            return gradients(*args, **kwargs)
        result = observed(record, "gradient", caller(), lambda: gradients(*args, **kwargs))
        traced = record.graph.traced
        if traced is not None and isinstance(result, (list, tuple)) and not record.busy:
            traced.watch_gradients(user_frame(), list(result))
        return result

    return observed_gradients
