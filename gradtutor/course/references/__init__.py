"""Reference gradients: for every exercise, seeded inputs and the right answer.

Each lesson's folder holds a module ``gradtutor/course/lessons/<lesson id>/reference.py`` with a dict

    EXERCISES = {"<exercise id>": Recipe(build=..., reference=..., rtol=..., atol=...)}

* ``build(seed)`` returns a dict of fresh inputs, in the order of the learner's
  function parameters (the function is called positionally with its values).
  It must be deterministic in ``seed`` (numpy ``default_rng(seed)``,
  ``keras.utils.set_random_seed(seed)`` before building a model) and build new
  objects on every call: the reference and the learner each get their own.
* ``variants`` (optional) maps an id to a function of the same inputs that computes
  what learners compute by mistake (the class next to k, a softmax applied twice);
  computed in the reference process, a learner's values equal to one are named by it.
* ``reference(*inputs)`` returns a ``tf.Tensor`` or a tuple of ``tf.Tensor``.
  It is the answer the learner's function must reproduce, and it runs in a
  process where no learner code has been loaded.

Every reference is cross-checked in ``test_references_<lesson>.py`` in the lesson's folder by a
method that does not use GradientTape (a closed form or finite differences).

This package is imported only inside the checker's worker process, which has
TensorFlow; the parent process that compares results never imports it. It loads a
lesson's reference.py as its submodule ``gradtutor.course.references.<lesson id>``:
one package name holds every answer, so the isolation forgets them all by that
prefix (gradtutor.isolation.child._forget_references) and forbids learner code it
(gradtutor.isolation.policy.FORBIDDEN_MODULES), wherever the lesson's folder is.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

from gradtutor.course.seeds import ALL_SEEDS, HIDDEN_SEEDS, VISIBLE_SEEDS, seeds_for  # the seeds live apart from the answers

__all__ = ["ALL_SEEDS", "HIDDEN_SEEDS", "VISIBLE_SEEDS", "Recipe", "exercises_of", "reference_module", "seeds_for",
           "seed_weights"]

WEIGHTS_STREAM = 0x5EED_3617  # the stream a lesson's Keras weights are drawn from, apart from the input's seed


@dataclasses.dataclass(frozen=True)
class Recipe:
    """How to check one exercise: its seeded inputs and its reference answer (course.manifest.Exercise
    is what the learner is asked; gradtutor.checking.verdict.Reference is a recipe's computed result)."""

    build: Callable[[int], dict[str, Any]]
    reference: Callable[..., Any]
    rtol: float = 1e-4
    atol: float = 1e-6
    # what learners compute by mistake, as functions of the same inputs (id -> function): a learner's values
    # equal to one are named by it (messages: variant.<exercise id>.<variant id>)
    variants: dict[str, Callable[..., Any]] = dataclasses.field(default_factory=dict)


# gradtutor/course/lessons/: the lessons' folders (course.manifest.LESSONS_DIR; not imported, to stay light)
LESSONS_DIR = Path(__file__).resolve().parent.parent / "lessons"


def exercises_of(lesson_id: str) -> dict[str, Recipe]:
    """The EXERCISES table of one lesson's reference module."""
    return reference_module(lesson_id).EXERCISES


def reference_module(lesson_id: str):
    """A lesson's reference.py, imported once as gradtutor.course.references.<lesson id>."""
    name = f"{__name__}.{lesson_id}"
    if name in sys.modules:
        return sys.modules[name]
    if not lesson_id.isidentifier():
        raise ModuleNotFoundError(f"no reference module for lesson {lesson_id!r}", name=name)
    path = LESSONS_DIR / lesson_id / "reference.py"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or not path.is_file():
        raise ModuleNotFoundError(f"{path} is missing", name=name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    setattr(sys.modules[__name__], lesson_id, module)  # as an ordinary submodule import would
    return module


def seed_weights(seed: int) -> int:
    """Seed Python, NumPy and TensorFlow for building an input's Keras layers or model, apart from `seed`.

    The learner's function runs under keras.utils.set_random_seed(seed) (gradtutor.isolation.child), so
    weights drawn under that same seed are the weights a learner's own fresh `Dense(C)` gets: an answer
    that builds a twin of an input's layer instead of reading its kernel would match by coincidence.
    Drawn under a seed derived from `seed` (a default_rng stream of its own, never `seed` itself), the
    inputs are as deterministic as before and no layer the learner builds has their weights.
    Returns the seed used.
    """
    import keras
    import numpy as np

    derived = int(np.random.default_rng([seed, WEIGHTS_STREAM]).integers(1, 2**31 - 1))
    derived = derived + 1 if derived == seed else derived
    keras.utils.set_random_seed(derived)
    return derived
