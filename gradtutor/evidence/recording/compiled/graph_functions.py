"""The gradient calls that exist only in graphs: `tf.gradients` and `tf.hessians` (and the numpy_function family the
same modules hold), patched in every module TensorFlow and Keras 2 reach them through; in a TF1 `tf.Graph`, an
optimizer's `compute_gradients` (`minimize` calls it) too, and `Session.run`, which gives such a graph's gradients
their values (what is fetched and read: gradtutor.evidence.sessions, handed them through the record's reader)."""
from __future__ import annotations

import functools
import sys

from gradtutor.evidence.recording.frames import user_frame
from gradtutor.evidence.recording.listening import caller


def patch(record, tf, observed, observers=()) -> None:
    """tf.gradients (graph-only) and tf.numpy_function / py_func (Python on numpy arrays, no gradient), each handed
    to the reading's wrapper; `observed(record, kind, asker, call)` is instrument's record of one gradient call, and
    `observers` its list of those who see each gradient returned (instrument.OBSERVERS)."""
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
            setattr(module, name, _graph_gradients(record, wrapped, observed, observers) if name == "gradients"
                    else wrapped)
    _patch_sessions(record)


def _tf1_graph() -> bool:
    """Is a TF1 tf.Graph being built (not a tf.function, whose gradients the in-graph check reads: traced.py)?"""
    import tensorflow as tf

    return not tf.executing_eagerly() and not tf.compat.v1.executing_eagerly_outside_functions()


def _graph_gradients(record, gradients, observed, observers=()):
    """tf.gradients in a graph being traced is a gradient call like a traced tape's: its None is seen now, its values
    by the same in-graph check (traced.Tracing.watch_gradients), so a compiled step's tf.gradients is observed.
    Called eagerly it raises, and the reading names that (checks.tf_gradients_wrapper)."""
    import tensorflow as tf

    @functools.wraps(gradients)
    def observed_gradients(*args, **kwargs):
        if tf.executing_eagerly():
            return gradients(*args, **kwargs)
        result = observed(record, "gradient", caller(), lambda: gradients(*args, **kwargs))
        if not isinstance(result, (list, tuple)) or record.busy:
            return result
        traced = record.graph.traced
        if _tf1_graph():  # its values come from a Session run (gradtutor.evidence.sessions)
            ys, xs = kwargs.get("ys", args[0] if args else None), kwargs.get("xs", args[1] if len(args) > 1 else None)
            _watch(record, "tf.gradients", tf.nest.flatten(ys), tf.nest.flatten(xs), list(result))
        elif traced is not None:
            traced.watch_gradients(user_frame(), list(result))
            for observer in list(observers):  # as a traced tape's gradient is seen (explain's --fix re-run)
                observer(record, kwargs.get("ys", args[0] if args else None),
                         kwargs.get("xs", args[1] if len(args) > 1 else None), result)
        return result

    return observed_gradients


def _watch(record, call, targets, sources, gradients) -> None:
    try:
        record.reader.session_watch(record, call, user_frame(), targets, sources, gradients)
    except Exception:  # noqa: BLE001 - a graph this reading does not know: its gradients stay unobserved
        pass


def _patch_sessions(record) -> None:
    """compute_gradients in a TF1 graph is a gradient call (minimize's too); Session.run fetches the gradients a
    graph's calls returned alongside the program's own fetches, in the same run."""
    from tensorflow.python.client import session
    from tensorflow.python.training import optimizer

    compute, run = optimizer.Optimizer.compute_gradients, session.BaseSession.run
    record.originals.append((optimizer.Optimizer, {"compute_gradients": compute}))
    record.originals.append((session.BaseSession, {"run": run}))

    @functools.wraps(compute)
    def compute_gradients(self, loss, var_list=None, *args, **kwargs):
        pairs = compute(self, loss, var_list, *args, **kwargs)
        if _tf1_graph() and not record.busy and not callable(loss) and isinstance(pairs, list):
            asked = "minimize" if sys._getframe(1).f_code.co_name == "minimize" else "compute_gradients"
            _watch(record, asked, [loss], [v for _, v in pairs], [g for g, _ in pairs])
        return pairs

    @functools.wraps(run)
    def session_run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        watches = record.sessions.get(id(self.graph)) if not record.busy else None
        fed = {getattr(key, "name", str(key)).split(":")[0] for key in feed_dict or ()} if watches else set()
        due = [one for one in watches or () if one.due(fed)]
        if not due:
            return run(self, fetches, feed_dict, options, run_metadata)
        try:
            given, got = run(self, (fetches, [one.fetches() for one in due]), feed_dict, options, run_metadata)
        except Exception:  # noqa: BLE001 - what failed may be the program's own fetches: run them as it asked
            return run(self, fetches, feed_dict, options, run_metadata)
        for one, values in zip(due, got):
            try:
                record.reader.session_read(record, one, values)
            except Exception:  # noqa: BLE001 - values this reading cannot take: nothing is said of them
                pass
        return given

    optimizer.Optimizer.compute_gradients = compute_gradients
    session.BaseSession.run = session_run
