"""Did a tf.custom_gradient of the learner's own code give a step its gradient? Recorded during one call.

An exercise whose text says "tf.custom_gradient gives it its derivative" (course.toml
`requires = ["custom-gradient"]`) is met by evidence, not by the word in the source: the
gradient function a learner's `@tf.custom_gradient` returned ran while the tape differentiated.
A straight-through pair (`smooth + tf.stop_gradient(by_numpy - smooth)`) has the right values
and no such function, so it does not meet it.

TensorFlow's decorator looks up `_eager_mode_decorator` / `_graph_mode_decorator` in its module
on every call of a decorated function, so wrapping those two covers a function decorated before
the recording began (at a cell's top level) as well as one decorated inside the learner's
function, eagerly or inside a tf.function. Only functions of the learner's cells count (the
namespace the child loads them into is `__learner__`): TensorFlow's and Keras's own uses of
custom_gradient are not the learner's.

`link` (installed with every recording, gradtutor.evidence.recording.instrument) tells the op graph what the
tape is told: the decorated function's outputs are computed from its inputs, whatever ran inside
(a tf.numpy_function, NumPy on .numpy()), so a path through a custom gradient is a path by data.
"""
from __future__ import annotations

import contextlib
import functools

LEARNER_MODULE = "__learner__"  # the __name__ of the namespace gradtutor.isolation.child loads cells into
DECORATORS = ("_eager_mode_decorator", "_graph_mode_decorator")
CUSTOM_STEP = "custom_gradient"  # the op graph's step for one call of a custom-gradient function (link)


def link(record) -> None:
    """While recording, each eager call of a tf.custom_gradient function is a step of the op graph from its inputs
    to its outputs (one op whose gradient flows: the decorated function's own)."""
    import tensorflow as tf
    from tensorflow.python.ops import custom_gradient as module

    from gradtutor.evidence.recording.frames import raised_at, user_frame

    saved = module._eager_mode_decorator
    record.originals.append((module, {"_eager_mode_decorator": saved}))
    graph = record.graph

    def linked(f, args, kwargs):
        try:
            result = saved(f, args, kwargs)
        except Exception as error:  # its signature refused (a grad_fn without variables=): a gradient call's refusal
            observations = record.observations
            observations.raised(observations.called("custom_gradient", user_frame()), error, raised_at(error))
            raise
        _note_keywords(record, kwargs)
        if graph.recording_tapes and not graph.paused and not graph.off:
            inputs = [getattr(t, "handle", t) if isinstance(t, tf.Variable) else t
                      for t in tf.nest.flatten((args, kwargs)) if tf.is_tensor(t)]
            outputs = [t for t in tf.nest.flatten(result) if tf.is_tensor(t) and not isinstance(t, tf.Variable)]
            if inputs and outputs and not _computed_from(record, outputs, inputs):
                graph.add_step(CUSTOM_STEP, inputs, outputs, user_frame())
            graph.custom.update(graph.node_of(t) for t in outputs)  # their gradient is the function's own, not the slope
        return result

    module._eager_mode_decorator = linked
    _name_grad_fns(record, module)


def _note_keywords(record, kwargs) -> None:
    """The tensors a tf.custom_gradient function was given by keyword, at the user's line (once a line: a loop calls it):
    TensorFlow counts only positional tensors as its inputs."""
    import tensorflow as tf

    from gradtutor.evidence.recording.frames import user_frame

    keywords = [name for name, value in kwargs.items() if tf.is_tensor(value) or isinstance(value, tf.Variable)]
    if keywords:
        record.observations.keyword_tensors.setdefault(user_frame(), keywords)


def _name_grad_fns(record, module) -> None:
    """In a graph (a tf.function being traced), the gradient function a tf.custom_gradient function returns is
    noted by that function's name (record.observations.grad_fns): TensorFlow checks what it returns only when the
    tape calls it, and then names only the recorded op ("Recorded operation 'f' returned too few gradients")."""
    import inspect

    saved = module._graph_mode_decorator
    record.originals.append((module, {"_graph_mode_decorator": saved}))

    def named(f, args, kwargs):
        _note_keywords(record, kwargs)  # TensorFlow refuses keyword arguments while tracing: noted for the reading

        @functools.wraps(f)  # TensorFlow names the recorded op after f
        def noting(*a, **k):
            made = f(*a, **k)
            if isinstance(made, tuple) and len(made) == 2 and callable(made[1]):
                code = getattr(inspect.unwrap(made[1]), "__code__", None)
                if code is not None:
                    record.observations.grad_fns.setdefault(f.__name__, (code.co_filename, code.co_firstlineno))
            return made

        return saved(noting, args, kwargs)

    module._graph_mode_decorator = named


def _computed_from(record, outputs, inputs) -> bool:
    """Do recorded ops whose gradient flows already lead from the inputs to the outputs (a custom gradient of
    TensorFlow ops)? Then the op graph needs no step of its own, and the ops stay there to be replayed
    (explain.fix.central). A tf.numpy_function inside does not count: its gradient is the custom one."""
    graph = record.graph
    wanted = {node for node in (graph.known(t) for t in inputs) if node is not None}
    made = [node for node in (graph.known(t) for t in outputs) if node is not None]
    reached, _ = record.reader.cuts_back(made, wanted) if wanted and made else (False, [])
    return reached


@contextlib.contextmanager
def recording(into: dict):
    """Note `custom_gradient` in `into` (a RunFacts dict) when a learner's custom gradient function runs."""
    from tensorflow.python.ops import custom_gradient as module
    from tensorflow.python.util import tf_decorator

    saved = {name: getattr(module, name) for name in DECORATORS}

    def noting(grad_fn):
        def grad(*args, **kwargs):
            into["custom_gradient"] = True
            return grad_fn(*args, **kwargs)
        # TensorFlow reads grad_fn's signature (a `variables` argument): the decorator keeps it visible
        return tf_decorator.make_decorator(grad_fn, grad)

    def learner_steps(decorator):
        def run(f, args, kwargs):
            if getattr(f, "__module__", None) != LEARNER_MODULE:
                return decorator(f, args, kwargs)

            @functools.wraps(f)  # TensorFlow names the recorded op after f
            def step(*a, **k):
                made = f(*a, **k)
                if isinstance(made, tuple) and len(made) == 2 and callable(made[1]):
                    return made[0], noting(made[1])
                return made  # not (value, grad): TensorFlow's own error says what is wrong with it
            return decorator(step, args, kwargs)
        return run

    for name in DECORATORS:
        setattr(module, name, learner_steps(saved[name]))
    try:
        yield into
    finally:
        for name, original in saved.items():
            setattr(module, name, original)
