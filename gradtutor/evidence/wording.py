"""One sentence per cause: what the code did, and the fix — the voice of the checker's diagnoses."""
from __future__ import annotations

SYMPTOMS = {"none": "None", "zeros": "all zeros", "tiny": "almost zero", "nonfinite": "NaN or inf",
            "error": "an error"}

# cause id -> (what happened, the fix)
TEXT = {
    "unwatched": (("the tape never watched this source: a constant, a numpy array, a non-trainable variable "
                  "or a tape with watch_accessed_variables=False"),
                  "call tape.watch(x) first thing in the `with` block, or make it a trainable tf.Variable"),
    "outside-tape": (("a step between the source and the target ran outside the `with` block, so the tape never "
                     "recorded it"),
                     "compute the whole path — slices, losses, reductions — inside the `with` block"),
    "leaves-tensorflow": (("the value left TensorFlow here (numpy, .numpy(), float(), a Python list, "
                          "model.predict or a py/numpy_function), and what came back is a new constant"),
                          "stay in TensorFlow ops (tf.* or keras.ops) and call model(x), not model.predict(x)"),
    "integer-path": ("the path goes through an integer tensor, and integers carry no gradient",
                     "keep the path in floats: differentiate the float values before any cast or indexing"),
    "no-gradient-op": (("this op has no gradient (or a zero one almost everywhere), so nothing flows back "
                       "through it"),
                       "differentiate the logits or probabilities instead, or use a smooth surrogate"),
    "stop-gradient": ("tf.stop_gradient cuts the path here",
                      "remove the stop_gradient, or take the gradient with respect to a tensor after it"),
    "variable-replaced": (("the name no longer points at the variable the tape watched: it was rebound to a "
                          "tensor or a new variable here"),
                          "update the variable in place with v.assign(...) / v.assign_sub(...)"),
    "state-breaks-path": (("the value went through state here (an assign, a tf.data pipeline or a stateful "
                          "layer's stored state), and the tape does not follow state"),
                          "pass the value on as a tensor inside the tape; reset or avoid the state"),
    "not-used": ("the target does not depend on this source at all",
                 ("check the list of sources you pass (model built? the right variables?) and that the target "
                 "is computed from them")),
    "softmax-sum": ("the target is a softmax output: tape.gradient differentiates its sum, which is always 1",
                    ("take the gradient of a loss, of one class sliced inside the tape, or of the logits "
                    "(tape.jacobian for every class)")),
    "non-finite": ("a NaN or inf appeared on the path here (an unsafe tf.where branch, sqrt/log/division at 0)",
                   "make the op safe where its input can be 0, e.g. a second tf.where on the input itself"),
    "saturation": (("the op is saturated or clipped here (a sigmoid, tanh or softmax at its limits, a clip_by_value), "
                   "so its slope rounds to zero"),
                   "compute the loss on logits (from_logits=True), keep pre-activations small, or clip less"),
    "dead-relu": ("every ReLU output here is zero, so no gradient passes",
                  "check the initialisation and inputs, or use a LeakyReLU"),
    "tape-reused": (("a non-persistent tape was asked for a gradient a second time (its first use is the line "
                    "shown)"),
                    "use tf.GradientTape(persistent=True) for several gradients, or one tape per gradient"),
    "tf-gradients-eager": ("tf.gradients only works while building a graph, not in eager mode",
                           "use tf.GradientTape, or call tf.gradients inside a @tf.function"),
    "cannot-watch": (("tape.watch refused this object (a Keras tensor, a keras.Variable, numpy or a non-float "
                     "tensor)"),
                     "watch a float tf.Tensor or tf.Variable (for a keras.Variable, its .value)"),
    "wrong-tape": ("the gradient was asked of a tape that did not record this step (another, nested tape did)",
                   "ask the tape that recorded the computation, or record it inside both tapes"),
}


# what Keras' optimizer did with the gradients it was given (optimizers.py), before the cause
OPTIMIZER = {
    "error": "optimizer.apply_gradients raised \"No gradients provided for any variable\" ({sources})",
    "none": "optimizer.apply_gradients skipped {sources}: their gradients are None (Keras only warns)",
    "empty": ("optimizer.apply_gradients got no variables at all: the list given to tape.gradient was empty, "
              "although the target was computed from variables (the first one was made at the line shown): "
              "a model read before it was built, or bare tf.Variables Keras does not track"),
}
EMPTY_FIX = ("build the model (keras.Input, or one call) before reading model.trainable_variables, and make "
             "weights with add_weight / keras.Variable, not a bare tf.Variable")


def message(cause: str, symptom: str, sources: list[str], call: str = "gradient") -> str:
    what = TEXT.get(cause, ("", ""))[0]
    if call == "apply_gradients":
        if not sources:
            return OPTIMIZER["empty"]
        return f"{OPTIMIZER[symptom].format(sources=', '.join(sources))}, because {what}"
    subject = f"the gradient for {', '.join(sources)}" if sources else "the tape"
    if symptom == "error":
        return f"{subject} raised: {what}"
    return f"{subject} is {SYMPTOMS.get(symptom, symptom)}: {what}"


def fix(cause: str, call: str = "gradient", sources: list[str] | None = None) -> str:
    if call == "apply_gradients" and not sources:
        return EMPTY_FIX
    return TEXT.get(cause, ("", ""))[1]
