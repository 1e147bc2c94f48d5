"""What an exception says about a gradient: one a tape call raised, or one the user's code raised.

Most errors are the code's own business (a typo, a shape); a few are TensorFlow refusing a step
that breaks autodiff, and then the refusal *is* the finding: `w -= lr * dw` on a tf.Variable
would rebind the name to a new tensor (TensorFlow 2.x refuses it rather than let the next tape
find a plain tensor): `note` makes those findings, where they were raised (the innermost user
frame of the traceback). `tape_error` reads an error a tape call raised (gradtutor.evidence.reading.checks):
a tape used twice, a number given as the target, a model given as the source, an op with no gradient.
"""
from __future__ import annotations

import re

from gradtutor.evidence.reading import analysis
from gradtutor.evidence.reading import paths
from gradtutor.evidence.recording.frames import raised_at
from gradtutor.evidence.recording.graph import Exit
from gradtutor.protocol import Cause, Symptom

# (exception type name, a pattern of its text, the cause it stands for, what the code did: finding.refused.<id>)
REFUSALS = (
    ("RuntimeError", r"`variable [-+*/]= value` with `tf\.Variable`s is not supported", Cause.VARIABLE_REPLACED,
     "augmented_assign"),
    # a compiled loop's state (tf.function's while_loop: a Keras RNN that is not unrolled) followed by a derivative
    # TensorFlow cannot take through it there, e.g. forward mode
    ("ValueError", r"gradients \(or similar\) of a variable without handle data", Cause.NO_GRADIENT_OP,
     "no_handle_data"),
    # a NumPy (or SciPy) call given a tensor of a function being traced (tf.function, fit's step): the value would
    # leave TensorFlow, whose graph has no number to give it yet; TensorFlow's words name the NumPy call
    ("NotImplementedError", r"Cannot convert a symbolic (tf\.)?Tensor .* to a numpy array", Cause.LEAVES_TENSORFLOW,
     "symbolic_to_numpy"),
    ("AttributeError", r"'(Symbolic)?Tensor' object has no attribute 'numpy'", Cause.LEAVES_TENSORFLOW,
     "symbolic_numpy_method"),
    # a TF1 optimizer's minimize/compute_gradients given a loss tensor in eager mode: it must compute the loss under
    # its own tape, and a tensor computed before it asked is outside every tape
    ("RuntimeError", r"`loss` passed to Optimizer\.compute_gradients should be a function when eager execution",
     Cause.OUTSIDE_TAPE, "loss_not_callable"),
    # a tensor called as a function: the loss (or model output) was computed once, before the tape, where the code
    # meant a function for the tape to run
    ("TypeError", r"'([\w.]+\.)?(EagerTensor|Tensor|SymbolicTensor|ResourceVariable)' object is not callable",
     Cause.OUTSIDE_TAPE, "tensor_called"),
    # a tensor given by keyword to a tf.custom_gradient function while traced (a tf.function, fit's step, a Keras
    # model built from Input): TensorFlow takes such keywords only eagerly
    ("ValueError", r"custom_gradient decorator currently supports keywords arguments only when eager",
     Cause.CUSTOM_GRADIENT_SIGNATURE, "custom_gradient_keyword"),
)


def note(record, error: BaseException) -> None:
    """A finding for an exception passing out of the recorded block, when it is one of TensorFlow's refusals."""
    record.script_error = error  # an intended None the program then broke on is a finding (unexplained.py)
    text = _text(error)
    found = next(((cause, refused) for kind, pattern, cause, refused in REFUSALS
                  if type(error).__name__ == kind and re.search(pattern, text)), None)
    if found is None:
        return
    frame = raised_at(error)
    facts = {"error": type(error).__name__, "refused": found[1]}
    keywords = record.observations.keyword_tensors.get(frame)  # the names a repair passes by position
    record.add("raised", frame, [], found[0], frame, Symptom.ERROR, {**facts, "keywords": ",".join(keywords)}
               if keywords else facts)


def _text(error: BaseException) -> str:
    """The exception's text; "" when its __str__ itself raises (a learner's exception may lie): the exception the
    code raised must pass on as it is, never one of its __str__'s."""
    try:
        return str(error)
    except BaseException:  # noqa: BLE001 - anything a hostile __str__ raises
        return ""


def _outside_tensorflow(values) -> bool:
    """A numpy value or a Python number where the tape needs a tensor."""
    import numpy as np
    import tensorflow as tf

    return any(isinstance(v, (np.ndarray, np.generic, float, int)) for v in tf.nest.flatten(values))


def _not_tensors(values) -> bool:
    """An object that is neither a tensor nor a variable (a Keras model or layer: its weights are what it holds)."""
    import tensorflow as tf

    return any(not (tf.is_tensor(v) or hasattr(v, "handle") or _keras_variables([v])) for v in tf.nest.flatten(values))


def _keras_variables(values) -> bool:
    import tensorflow as tf

    return any("keras" in type(v).__module__ and type(v).__name__ == "Variable" for v in tf.nest.flatten(values))


def tape_error(record, info, call, frame, error, target, sources) -> None:
    """A finding for an error a tape call raised, when its text and the call's arguments name the cause."""
    text = _text(error)
    left = _left_from_sources(record, sources) or \
        next((item for item in reversed(record.graph.log) if isinstance(item, Exit)), None)
    if isinstance(error, RuntimeError) and "persistent" in text:
        record.add(call, frame, [], Cause.TAPE_REUSED, info.frame or info.gradient_frame or frame, Symptom.ERROR,
                   {"error": text})  # the `with` line: where persistent=True goes
    elif _outside_tensorflow(target) or isinstance(error, AttributeError) and "_id" in text and left is not None:
        # the target is a number (float(loss), loss.numpy()), or a source came from a value that left TensorFlow
        record.add(call, frame, [], Cause.LEAVES_TENSORFLOW, left.frame if left else frame, Symptom.ERROR, {"error": text})
    elif isinstance(error, AttributeError) and ("_type_enum" in text or "'dtype'" in text) and _keras_variables(sources):
        # unconnected_gradients=ZERO makes zeros like each source the target does not reach, and a keras.Variable is
        # not a tensor TensorFlow knows: so some source is unconnected (a target that reaches every source asks for
        # no zeros and does not raise), which its words say
        record.add(call, frame, [], Cause.CANNOT_WATCH, frame, Symptom.ERROR, {"error": text, "how": "unconnected_zero"})
    elif isinstance(error, AttributeError) and "_id" in text and (_outside_tensorflow(sources) or _not_tensors(sources)):
        # a numpy array, a number or another object (a Keras model, a layer) given as a source: nothing a tape watches
        record.add(call, frame, [], Cause.CANNOT_WATCH, frame, Symptom.ERROR, {"error": text})
    elif isinstance(error, LookupError) and "gradient" in text.lower():
        op = next((op for op in reversed(record.graph.log)
                   if getattr(op, "type", None) and op.type in text and info in op.tapes), None)
        record.add(call, frame, [], Cause.NO_GRADIENT_OP, op.frame if op else frame, Symptom.ERROR, {"error": text})


def _left_from_sources(record, sources):
    """The latest exit of a value computed from the sources (`flat = x.numpy()`), not of any value that left
    TensorFlow (a weight read by numpy on the next line)."""
    import tensorflow as tf

    graph = record.graph
    for source in tf.nest.flatten(sources):
        source = analysis.tf_object(source)
        if isinstance(source, tf.Variable) or tf.is_tensor(source):
            node = graph.known(source.handle if isinstance(source, tf.Variable) else source)
            if node is not None:
                reached = paths.descendants(graph, node)
                found = [item for item in graph.log if isinstance(item, Exit) and item.node in reached]
                if found:
                    return found[-1]
    return None
