"""What an exception the user's code raised says about a gradient, when TensorFlow's own refusal names the cause.

Most errors are the code's own business (a typo, a shape); a few are TensorFlow refusing a step
that breaks autodiff, and then the refusal *is* the finding: `w -= lr * dw` on a tf.Variable
would rebind the name to a new tensor (TensorFlow 2.x refuses it rather than let the next tape
find a plain tensor). Errors a tape call raised are the checks' (gradtutor.evidence.checks);
this table is for the rest, found where they were raised (the innermost user frame of the traceback).
"""
from __future__ import annotations

import re

from gradtutor.evidence.frames import is_user_file
from gradtutor.protocol import Cause, Symptom

# (exception type name, a pattern of its text, the cause it stands for, what the code did: finding.refused.<id>)
REFUSALS = (
    ("RuntimeError", r"`variable [-+*/]= value` with `tf\.Variable`s is not supported", Cause.VARIABLE_REPLACED,
     "augmented_assign"),
    # a compiled loop's state (tf.function's while_loop: a Keras RNN that is not unrolled) followed by a derivative
    # TensorFlow cannot take through it there, e.g. forward mode
    ("ValueError", r"gradients \(or similar\) of a variable without handle data", Cause.NO_GRADIENT_OP,
     "no_handle_data"),
)


def note(record, error: BaseException) -> None:
    """A finding for an exception passing out of the recorded block, when it is one of TensorFlow's refusals."""
    text = str(error)
    found = next(((cause, refused) for kind, pattern, cause, refused in REFUSALS
                  if type(error).__name__ == kind and re.search(pattern, text)), None)
    if found is None:
        return
    frame = raised_at(error)
    record.add("raised", frame, [], found[0], frame, Symptom.ERROR,
               {"error": type(error).__name__, "refused": found[1]})


def raised_at(error: BaseException):
    """(file, line) of the innermost frame of the user's code the exception passed through, or None. Inside a
    tf.function, autograph's translated stack (the error's metadata) has the user's lines its code was converted from."""
    translated = getattr(getattr(error, "ag_error_metadata", None), "translated_stack", None) or ()
    mapped = [(frame.filename, frame.lineno) for frame in translated
              if getattr(frame, "filename", None) and is_user_file(frame.filename)]
    if mapped:
        return mapped[-1]
    found = None
    trace = error.__traceback__
    while trace is not None:
        if is_user_file(trace.tb_frame.f_code.co_filename):
            found = (trace.tb_frame.f_code.co_filename, trace.tb_lineno)
        trace = trace.tb_next
    return found
