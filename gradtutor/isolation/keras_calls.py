"""What the learner's code did with Keras during one call, for the rules an exercise's text states
(lesson.toml `requires`, gradtutor.checking.diagnose.unmet_requirement):

* `forward_calls`: how many times the Keras layers and models among the inputs were called
  ("one forward pass"): a model calling its own layers is one call of the model;
* `weights_made`: for each weight a layer class of the learner's made with `add_weight`, the
  learner's method it was made in ("build", "__init__", …): "make them in `build` with
  `self.add_weight`" is checked from these, and a layer that made none (its weights are
  `keras.Variable` or `tf.Variable` attributes) leaves the list empty;
* `fresh_weights`: the Keras layer classes (not the learner's) that made new weights during the call:
  a `Dense(C)` built inside the function has new random weights, not those of the model it was given.

The run facts of gradtutor.evidence record tapes and ops, not these; Keras's own methods are
wrapped for the call only and restored after it, in the checker's child alone.
"""
from __future__ import annotations

import contextlib
import sys

LEARNER_MODULE = "__learner__"  # the module name the child's namespace gives the learner's classes
MAX_DEPTH = 12  # frames searched above add_weight for the learner's method that asked for it


@contextlib.contextmanager
def recording(args, recorded: dict, labels: frozenset):
    """Record `forward_calls`, `weights_made` and `fresh_weights` into `recorded` while the block runs."""
    import keras

    layer_class = keras.layers.Layer
    inputs = {id(arg) for arg in args if isinstance(arg, layer_class)}
    original_call, original_add = layer_class.__call__, layer_class.add_weight
    calls, made, fresh, depth = [0], [], [], [0]

    def counting_call(self, *a, **k):
        outermost = depth[0] == 0
        if id(self) in inputs and outermost:
            calls[0] += 1
        depth[0] += id(self) in inputs
        try:
            return original_call(self, *a, **k)
        finally:
            depth[0] -= id(self) in inputs

    def noting_add_weight(self, *a, **k):
        if type(self).__module__ == LEARNER_MODULE:
            made.append(_learner_method(sys._getframe(1), labels))
        else:
            fresh.append(type(self).__name__)
        return original_add(self, *a, **k)

    layer_class.__call__, layer_class.add_weight = counting_call, noting_add_weight
    try:
        yield
    finally:
        layer_class.__call__, layer_class.add_weight = original_call, original_add
        recorded["forward_calls"] = calls[0]
        recorded["weights_made"] = made
        recorded["fresh_weights"] = sorted(set(fresh))


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
