"""What `gradtutor explain` finds first in each known answer: the other half of `agree: A/B`.

The checker names one cause per wrong answer (from its run facts, gradtutor.evidence.reading.run_facts);
`gradtutor explain` records the same call with gradtutor.evidence.recording and lists
findings. For an answer whose known cause is a run-time one (why a gradient came back None,
zero or NaN: RUN_TIME), both read what the same code did, so they must name the same cause.
This module runs each answer as explain runs a script — the answer's file, its function
called on the exercise's inputs (as the checker calls it: the course's seeds in order, up to
the first that raises), inside one recording — and reports the first finding's cause.

    python -m gradtutor.dev.agreement < answers.json > causes.json

reads [{"lesson", "exercise", "code"}, …] and writes, in the same order, the first finding of each as
{"cause", "code", "asked"} (cause: null when there is no finding; code: the learner's line where the path
broke, "" when none is known; asked: whether the code asked for a gradient at all).
`explain_causes` does that in a fresh process (TensorFlow and the answers' state stay out of
the caller's). Only for the project's own answers: nothing here is sandboxed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from gradtutor.protocol import Cause

# the causes of a gradient that came back None, zero or not finite: what a run-time recording sees
RUN_TIME = frozenset({
    Cause.UNWATCHED, Cause.OUTSIDE_TAPE, Cause.LEAVES_TENSORFLOW, Cause.INTEGER_PATH, Cause.NO_GRADIENT_OP,
    Cause.STOP_GRADIENT, Cause.VARIABLE_REPLACED, Cause.STATE_BREAKS_PATH, Cause.NOT_USED, Cause.SOFTMAX_SUM,
    Cause.NON_FINITE, Cause.SATURATION, Cause.DEAD_RELU, Cause.TAPE_REUSED, Cause.TF_GRADIENTS_EAGER,
    Cause.CANNOT_WATCH, Cause.WRONG_TAPE})
TIMEOUT = 900  # seconds for the whole corpus (about a minute on two cores)


def explain_causes(answers: list[dict]) -> list[dict]:
    """Explain's first finding on each answer ({"lesson", "exercise", "code"}) as {"cause", "code", "asked"}."""
    done = subprocess.run([sys.executable, "-m", "gradtutor.dev.agreement"], input=json.dumps(answers),
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    if done.returncode:
        raise RuntimeError(f"gradtutor.dev.agreement failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def first_finding(lesson_id: str, exercise_id: str, code: str, path: str) -> dict:
    """Run one answer as a script under explain's recording; its first finding's cause id and break line."""
    import keras

    from gradtutor import evidence
    from gradtutor.course import manifest as course
    from gradtutor.evidence.reading import raised as refusals
    from gradtutor.dev.answers import STANDARD_IMPORTS
    from gradtutor.course.references import exercises_of
    from gradtutor.course.seeds import ALL_SEEDS

    with open(path, "w", encoding="utf-8") as file:
        file.write(STANDARD_IMPORTS + code)
    function_name = course.load().lesson(lesson_id).exercise(exercise_id).function
    namespace: dict = {"__name__": "__answer__"}
    exec(compile(STANDARD_IMPORTS + code, path, "exec"), namespace)  # noqa: S102 - the project's own answers
    build = exercises_of(lesson_id)[exercise_id].build
    first, asked = None, False
    for seed in ALL_SEEDS:
        args = list(build(seed).values())
        keras.utils.set_random_seed(seed)
        raised = False
        forward = _ForwardCalls()
        with evidence.recording(listeners=[forward]) as record:
            try:
                namespace[function_name](*args)
            except Exception as error:  # noqa: BLE001 - a wrong answer may raise; its findings still count
                refusals.note(record, error)  # as explain's runner notes a script's exception
                raised = True
        findings = evidence.analyse(record)
        asked = asked or record.gradient_calls > 0 or forward.calls > 0
        if first is None or raised:  # the checker reads the first seed's facts, or the one that raised
            first = findings
        if raised:
            break
    if not first:
        return {"cause": None, "code": "", "asked": asked}
    return {"cause": str(first[0]["cause"]), "code": (first[0]["broke_at"] or {}).get("code") or "", "asked": asked}


class _ForwardCalls:
    """A listener that counts ForwardAccumulator.jvp calls: forward mode asks for a derivative too."""

    calls = 0

    def jvp(self, primals, caller) -> None:
        self.calls += 1


def main() -> None:
    import gradtutor.quiet  # noqa: F401 - before TensorFlow
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    answers = json.load(sys.stdin)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what the answers print is not the result
    causes = []
    with tempfile.TemporaryDirectory() as folder:
        for number, answer in enumerate(answers):
            path = os.path.join(folder, f"{answer['lesson']}_{answer['exercise']}_{number}.py")
            try:
                causes.append(first_finding(answer["lesson"], answer["exercise"], answer["code"], path))
            except Exception as exc:  # noqa: BLE001 - an answer that cannot even load: no finding
                print(f"{answer['lesson']} {answer['exercise']}: {type(exc).__name__}: {exc}", file=sys.stderr)
                causes.append({"cause": None, "code": "", "asked": False})
    sys.stdout.flush()
    out.write(json.dumps(causes) + "\n")
    out.close()


if __name__ == "__main__":
    main()
