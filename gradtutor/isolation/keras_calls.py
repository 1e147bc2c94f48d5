"""What the learner's code did with Keras during one call, for the rules an exercise's text states
(lesson.toml `requires`, gradtutor.checking.requirements.unmet_requirement):

* `forward_calls`: how many times the Keras layers and models among the inputs were called
  ("one forward pass"): a model calling its own layers is one call of the model;
* `weights_made`: for each weight a layer class of the learner's made with `add_weight`, the
  learner's method it was made in ("build", "__init__", …): "make them in `build` with
  `self.add_weight`" is checked from these, and a layer that made none (its weights are
  `keras.Variable` or `tf.Variable` attributes) leaves the list empty;
* `fresh_weights`: the Keras layer classes (not the learner's) that made new weights during the call:
  a `Dense(C)` built inside the function has new random weights, not those of the model it was given;
* `bias_made_first`: a layer class of the learner's made a vector weight (a bias) before a matrix (a
  kernel), so its `trainable_variables` lists the bias first: "the kernel first" is then not the order
  the learner's own list has.

The run facts of gradtutor.evidence record tapes and ops, not these; Layer.add_weight and each Keras
input's own `call` are wrapped for the call only and restored after it, in the checker's child alone.
"""
from __future__ import annotations

import contextlib
import inspect
import sys

LEARNER_MODULE = "__learner__"  # the module name the child's namespace gives the learner's classes
MAX_DEPTH = 12  # frames searched above add_weight for the learner's method that asked for it


@contextlib.contextmanager
def recording(args, recorded: dict, labels: frozenset):
    """Record `forward_calls`, `weights_made` and `fresh_weights` into `recorded` while the block runs."""
    import keras

    layer_class = keras.layers.Layer
    inputs = [arg for arg in args if isinstance(arg, layer_class)]
    original_add = layer_class.add_weight
    calls, made, fresh, depth, ranks = [0], [], [], [0], []

    def counting(call):
        # each Keras input's own `call`, wrapped on the instance: Layer.__call__ itself stays untouched (the
        # run facts read the stack through it), and a model calling its own layers is one call of the model
        def counted(*a, **k):
            calls[0] += depth[0] == 0
            depth[0] += 1
            try:
                return call(*a, **k)
            finally:
                depth[0] -= 1
        # The run facts place each op at the innermost frame outside the libraries (gradtutor.evidence.recording.
        # frames), and this module is not among them: a frame of it would hide the learner's line that called
        # the model. Its code is filed under Keras's Layer, whose call it stands in for (and so is add_weight's).
        counted.__code__ = counted.__code__.replace(co_filename=inspect.getfile(layer_class))
        return counted

    def noting_add_weight(self, *a, **k):
        if type(self).__module__ == LEARNER_MODULE:
            made.append(_learner_method(sys._getframe(1), labels))
            ranks.append(_rank(k.get("shape", a[0] if a else None)))
        else:
            fresh.append(type(self).__name__)
        return original_add(self, *a, **k)

    noting_add_weight.__code__ = noting_add_weight.__code__.replace(co_filename=inspect.getfile(layer_class))

    for layer in inputs:
        layer.__dict__["call"] = counting(layer.call)  # past Keras's __setattr__: nothing is tracked
    layer_class.add_weight = noting_add_weight
    try:
        yield
    finally:
        layer_class.add_weight = original_add
        for layer in inputs:
            layer.__dict__.pop("call", None)
        recorded["forward_calls"] = calls[0]
        recorded["weights_made"] = made
        recorded["fresh_weights"] = sorted(set(fresh))
        recorded["bias_made_first"] = _vector_before_matrix(ranks)


def _learner_method(frame, labels: frozenset) -> str:
    """The name of the learner's method that made a weight: "build" when a build of theirs is on the
    stack (a helper called from build counts), else the innermost learner function's name."""
    innermost = ""
    for _ in range(MAX_DEPTH):
        if frame is None:
            break
        if frame.f_code.co_filename in labels:
            if frame.f_code.co_name == "build":
                return "build"
            innermost = innermost or frame.f_code.co_name
        frame = frame.f_back
    return innermost or "?"


def _rank(shape) -> int | None:
    """The rank of an add_weight shape (a tuple, a list or a TensorShape), None when it cannot be read."""
    try:
        return len(tuple(shape))
    except TypeError:
        return None


def _vector_before_matrix(ranks: list) -> bool:
    """Was a vector (rank 1) made before the first matrix (rank 2 or more)?"""
    first_matrix = next((i for i, rank in enumerate(ranks) if rank is not None and rank >= 2), None)
    return first_matrix is not None and 1 in ranks[:first_matrix]
