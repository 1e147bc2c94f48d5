"""Answers hard-coded from known inputs: a lookup table of the reference answers, keyed by the input.

Shared by tests/classroom/test_classroom.py (an answer hard-coded from the visible inputs) and
tests/classroom/test_classroom_secret.py (one hard-coded from the visible and the package's public hidden
inputs, which a course's secret hidden inputs must still catch).
"""
from __future__ import annotations

import json
import sys

from gradtutor.course import manifest as course
from tests.support import REPO
from tests.support.classroom import run

# How a hard-coded answer recognises the inputs it was written for: the sum of its first array argument.
KEY_SOURCE = '''
def _input_key(args):
    import numpy as _np
    for arg in args:
        try:
            array = _np.asarray(arg, dtype=_np.float64)
        except Exception:
            continue
        if array.size > 1:
            return round(float(array.sum()), 3)
    return None
'''

REFERENCE_SCRIPT = KEY_SOURCE + '''
import json, sys
import gradtutor.quiet
import numpy as np
from gradtutor.course.references import VISIBLE_SEEDS, exercises_of

def plain(value):
    if isinstance(value, (tuple, list)):
        return {"tuple": [plain(v)["value"] for v in value], "dtype": value[0].dtype.name}
    return {"value": np.asarray(value).tolist(), "dtype": value.dtype.name}

wanted, seeds = json.loads(sys.argv[1]), json.loads(sys.argv[2])
table = {}
for lesson, ids in wanted.items():
    exercises = exercises_of(lesson)
    for exercise in ids:
        entry = table.setdefault(lesson, {}).setdefault(exercise, {})
        for seed in seeds[lesson]:
            inputs = list(exercises[exercise].build(seed).values())
            key = _input_key(inputs)
            value = exercises[exercise].reference(*inputs)
            entry[str(seed)] = {"key": key, "visible": seed in VISIBLE_SEEDS, **plain(value)}
print(json.dumps(table))
'''


def reference_table(lesson_ids: list[str], seeds) -> dict:
    """lesson → exercise → seed → the input key and the reference answer (computed with TensorFlow).

    seeds: the same for every lesson, or lesson → its seeds (a course's hidden seeds differ by lesson): one
    process computes every lesson's table, so TensorFlow is imported once.
    """
    wanted = {lesson: [e.id for e in course.load().lesson(lesson).exercises] for lesson in lesson_ids}
    per_lesson = {lesson: list(seeds[lesson] if isinstance(seeds, dict) else seeds) for lesson in lesson_ids}
    done = run([sys.executable, "-c", REFERENCE_SCRIPT, json.dumps(wanted), json.dumps(per_lesson)], cwd=REPO,
               timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def hard_coded_code(exercise: course.Exercise, entries: dict) -> str:
    """An answer that returns the reference values of the inputs in `entries` (seed → table entry), looked
    up by input: right on those inputs, wrong everywhere else."""
    known = {entry["key"]: entry for entry in entries.values()}
    assert len(known) == len(entries), "two of the inputs share a key"
    first = next(iter(known.values()))
    table = {key: (entry.get("tuple") or entry["value"]) for key, entry in known.items()}
    as_tuple = "tuple" in first
    body = ("tuple(tf.constant(v, dtype=tf.%s) for v in answer)" if as_tuple else "tf.constant(answer, dtype=tf.%s)") % first["dtype"]
    return (f"def {exercise.function}(*args):\n"
            f"    # the answers I printed for the inputs I saw\n"
            f"{_indent(KEY_SOURCE)}\n"
            f"{_indent(_going_through_the_motions(exercise))}\n"
            f"    seen = {table!r}\n"
            f"    answer = seen.get(_input_key(args), seen[{next(iter(known))!r}])\n"
            f"    return {body}\n")


def _going_through_the_motions(exercise: course.Exercise) -> str:
    """A tape (or NumPy) the exercise's text asks for (its `requires`), run on nothing: a hard-coder adds one
    to get past that check, so only the hidden inputs' values can catch the table."""
    if not exercise.requires:
        return ""
    if "forward-mode" in exercise.requires:  # an accumulator's jvp, and no backward call
        return ("_probe = tf.constant([1.0])\n"
                "with tf.autodiff.ForwardAccumulator(_probe, tf.ones_like(_probe)) as _acc:\n"
                "    _out = _probe * 2.0\n_acc.jvp(_out)\n")
    call = "jacobian" if "one-jacobian" in exercise.requires else "gradient"
    numpy = "    _probe.numpy()\n" if "numpy" in exercise.requires else ""
    custom = ("@tf.custom_gradient\ndef _double(x):\n    return x * 2.0, lambda upstream: upstream * 2.0\n"
              if "custom-gradient" in exercise.requires else "")
    step = "_double(_probe)" if custom else "_probe * 2.0"
    return (f"{custom}with tf.GradientTape() as _tape:\n    _probe = tf.constant([1.0])\n    _tape.watch(_probe)\n"
            f"{numpy}    _out = {step}\n_tape.{call}(_out, _probe)\n")


def _indent(code: str) -> str:
    return "\n".join("    " + line if line.strip() else "" for line in code.strip("\n").splitlines())
